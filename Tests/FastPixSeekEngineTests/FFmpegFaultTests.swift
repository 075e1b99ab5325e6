import XCTest
@testable import FastPixSeekEngine
import FastPixSeekCore
