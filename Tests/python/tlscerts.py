"""Certificates for https servers on 127.0.0.1, made by the openssl CLI: a throwaway CA, a
server certificate it signs for 127.0.0.1 (subjectAltName IP and DNS, so GnuTLS, OpenSSL
and mbedTLS each find the name), one it signs for another host, and a self-signed one."""
from __future__ import annotations

import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Tuple

Pair = Tuple[Path, Path]  # (certificate, key), PEM: what rangeserver.serve(tls=) takes


@dataclass(frozen=True)
class Certs:
    ca: Path            # the CA's certificate: what a client trusts
    server: Pair        # signed by the CA for 127.0.0.1
    wrong_host: Pair    # signed by the CA for wrong.invalid only
    self_signed: Pair   # for 127.0.0.1, signed by nobody the client trusts


def _openssl(*args: str) -> None:
    subprocess.run(["openssl", *args], check=True, capture_output=True, timeout=60)


def _leaf(d: Path, name: str, ca: Pair, san: str) -> Pair:
    cert, key, csr, ext = (d / f"{name}.pem", d / f"{name}.key", d / f"{name}.csr", d / f"{name}.ext")
    _openssl("req", "-newkey", "rsa:2048", "-nodes", "-subj", f"/CN={name}", "-keyout", str(key),
             "-out", str(csr))
    ext.write_text(f"subjectAltName={san}\nbasicConstraints=CA:FALSE\n"
                   "keyUsage=digitalSignature,keyEncipherment\nextendedKeyUsage=serverAuth\n")
    _openssl("x509", "-req", "-in", str(csr), "-CA", str(ca[0]), "-CAkey", str(ca[1]),
             "-CAcreateserial", "-days", "2", "-sha256", "-extfile", str(ext), "-out", str(cert))
    return cert, key


def make(d: Path) -> Certs:
    d.mkdir(parents=True, exist_ok=True)
    ca = (d / "ca.pem", d / "ca.key")
    _openssl("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-subj", "/CN=FastPixSeek test CA",
             "-addext", "basicConstraints=critical,CA:TRUE", "-addext", "keyUsage=critical,keyCertSign,cRLSign",
             "-keyout", str(ca[1]), "-out", str(ca[0]))
    self_signed = (d / "self.pem", d / "self.key")
    _openssl("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-subj", "/CN=127.0.0.1",
             "-addext", "subjectAltName=IP:127.0.0.1,DNS:127.0.0.1", "-keyout", str(self_signed[1]),
             "-out", str(self_signed[0]))
    return Certs(ca=ca[0], server=_leaf(d, "server", ca, "IP:127.0.0.1,DNS:127.0.0.1,DNS:localhost"),
                 wrong_host=_leaf(d, "wrong", ca, "DNS:wrong.invalid"), self_signed=self_signed)
