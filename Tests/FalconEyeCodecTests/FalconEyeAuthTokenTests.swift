import FalconEyeCodec
import Testing

/// HMAC-SHA256 tokens against Python's hmac/hashlib/base64.
@Suite struct FalconEyeAuthTokenTests {
  // python3 -c 'import hmac,hashlib,base64; print(base64.b64encode(hmac.new(b"s3cret",
  //   b"C42E1CA0-94CF-6ABA-9EAB-CBA13F19711E:1700000000.5", hashlib.sha256).digest()).decode())'
  @Test func clientSigningMatchesPython() {
    let token = FalconEyeAuthToken.client(
      deviceId: "C42E1CA0-94CF-6ABA-9EAB-CBA13F19711E", timestamp: 1_700_000_000.5, secret: "s3cret")
    #expect(token == "MrpgkgQ55uOBGX2vSJl7GEfA8wiMb6vs4vZ53PN5Eqg=")
  }

  /// Swift's "\(Double)" keeps ".0" on whole timestamps, so the app signs
  /// "dev-1:1700000000.0", not "dev-1:1700000000".
  // python3 -c 'import hmac,hashlib,base64; print(base64.b64encode(hmac.new(b"s3cret",
  //   b"dev-1:1700000000.0", hashlib.sha256).digest()).decode())'
  @Test func clientSigningOfAWholeTimestamp() {
    let token = FalconEyeAuthToken.client(deviceId: "dev-1", timestamp: 1_700_000_000, secret: "s3cret")
    #expect(token == "AFCmrWx5aKBFgxhbha6D7CfXAwnmrToid7LIUEFKukE=")
  }

  // python3 -c 'import hmac,hashlib,base64; print(base64.b64encode(hmac.new(b"s3cret",
  //   b"C42E1CA0-94CF-6ABA-9EAB-CBA13F19711E:1700000000.5:00112233445566778899aabbccddeeff:s3cret",
  //   hashlib.sha256).digest()).decode())'
  @Test func serverSigningMatchesPython() {
    let token = FalconEyeAuthToken.server(
      deviceId: "C42E1CA0-94CF-6ABA-9EAB-CBA13F19711E", timestamp: 1_700_000_000.5,
      nonce: "00112233445566778899aabbccddeeff", secret: "s3cret")
    #expect(token == "KeXee/SnKin1OqH6+J1Zx/gxEuM57E54I69xgGRMDjk=")
  }

  /// RFC 4231 test case 2 (key "Jefe"), as base64:
  // python3 -c 'import hmac,hashlib,base64; print(base64.b64encode(hmac.new(b"Jefe",
  //   b"what do ya want for nothing?", hashlib.sha256).digest()).decode())'
  @Test func rfc4231TestCase2() {
    #expect(
      FalconEyeAuthToken.sign(message: "what do ya want for nothing?", secret: "Jefe")
        == "W9zBRr9gdU5qBCQmCJV1x1oAPwidJzmDnexYuWTsOEM=")
  }

  @Test func serverShapeCheck() {
    #expect(FalconEyeAuthToken.isAcceptedByServer("MrpgkgQ55uOBGX2vSJl7GEfA8wiMb6vs4vZ53PN5Eqg="))
    #expect(!FalconEyeAuthToken.isAcceptedByServer("MrpgkgQ55uOBGX2vSJl7GEfA8wiMb6vs4vZ53PN5Eqg"))
    #expect(!FalconEyeAuthToken.isAcceptedByServer("AAAAAAAAAAAA"))
  }

  @Test func randomNoncesAre32HexDigits() {
    let nonce = FalconEyeAuthToken.randomNonce()
    #expect(nonce.count == 32)
    #expect(nonce.allSatisfy { $0.isHexDigit && !$0.isUppercase })
    #expect(nonce != FalconEyeAuthToken.randomNonce())
  }
}
