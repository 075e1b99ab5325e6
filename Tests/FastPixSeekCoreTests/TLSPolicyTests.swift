import XCTest
@testable import FastPixSeekCore

/// TLSPolicy's order of CA files (seek.h, fpx_player_config.tls_ca_file): the host's file,
/// else $SSL_CERT_FILE, else the first system bundle that exists, else none.
final class TLSPolicyTests: XCTestCase {
    func testTheHostsFileComesFirst() {
        let p = TLSPolicy(caFile: "/host/ca.pem")
        XCTAssertEqual(p.caFile(environment: "/env/ca.pem", exists: { _ in true }), "/host/ca.pem")
    }

    func testThenTheEnvironmentThenTheFirstBundleThatExists() {
        let p = TLSPolicy.default
        XCTAssertTrue(p.verify)
        XCTAssertEqual(p.caFile(environment: "/env/ca.pem", exists: { _ in false }), "/env/ca.pem")
        XCTAssertEqual(p.caFile(environment: "", exists: { $0 == "/etc/ssl/ca-bundle.pem" || $0 == "/etc/ssl/cert.pem" }),
                       "/etc/ssl/ca-bundle.pem")
        XCTAssertEqual(p.caFile(environment: nil, exists: { $0 == TLSPolicy.systemBundles[0] }),
                       "/etc/ssl/certs/ca-certificates.crt")
        XCTAssertNil(p.caFile(environment: nil, exists: { _ in false }))
    }
}
