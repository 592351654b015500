import NIOSSL

/// One sentence for a TLS failure, saying what a person can do about it.
package enum TLSFailure {
  /// Why a wss:// connection failed its handshake, or nil if `error` is
  /// not a TLS error.
  package static func connect(_ error: Error, what: String) -> String? {
    if let extra = error as? NIOSSLExtraError, extra == .failedToValidateHostname {
      return "\(what): the server's certificate is not for this host (\(extra)); "
        + "connect by the name it was issued for, or use --insecure to skip the check"
    }
    guard let ssl = error as? NIOSSLError else { return nil }
    let text = describe(ssl)
    if text.contains("CERTIFICATE_VERIFY_FAILED") {
      return "\(what): the server's certificate is not trusted (self-signed, or signed by an authority "
        + "this machine does not know); use --insecure to connect anyway"
    }
    if text.contains("WRONG_VERSION_NUMBER") || text.contains("PACKET_LENGTH_TOO_LONG") {
      return "\(what): the server does not speak TLS (is it ws:// rather than wss://?)"
    }
    return "\(what): the TLS handshake failed (\(text))"
  }

  static func isTLS(_ error: Error) -> Bool {
    error is NIOSSLError || error is NIOSSLExtraError || error is BoringSSLError
  }

  /// Why a client's TLS handshake with `listen`/`emulate` failed.
  package static func server(_ error: Error) -> String {
    let reason = describe(error)
    switch reason {
    case "TLSV1_ALERT_UNKNOWN_CA", "SSLV3_ALERT_BAD_CERTIFICATE", "SSLV3_ALERT_CERTIFICATE_UNKNOWN":
      return "the client does not trust this certificate (\(reason)); give it the certificate or its "
        + "authority, or connect with --insecure"
    case "HTTP_REQUEST", "WRONG_VERSION_NUMBER":
      return "the client spoke plain HTTP or ws:// to this wss port (\(reason))"
    default:
      return reason
    }
  }

  /// BoringSSL's reason (`CERTIFICATE_VERIFY_FAILED`), or the error's text
  /// when it carries none.
  package static func describe(_ error: Error) -> String {
    let text = String(describing: error)
    let marker = "OPENSSL_internal:"
    guard let start = text.range(of: marker)?.upperBound else { return text }
    let reason = text[start...].prefix { $0.isUppercase || $0.isNumber || $0 == "_" }
    return reason.isEmpty ? text : String(reason)
  }
}
