#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// The libc calls the sender makes itself, under names its methods do not shadow.
enum POSIXSocket {
  package static func datagram(family: CInt) -> CInt {
    #if canImport(Glibc)
      Glibc.socket(family, CInt(SOCK_DGRAM.rawValue), 0)
    #else
      Darwin.socket(family, SOCK_DGRAM, 0)
    #endif
  }

  package static func connect(_ socket: CInt, _ address: UnsafePointer<sockaddr>, _ length: socklen_t) -> CInt
  {
    #if canImport(Glibc)
      Glibc.connect(socket, address, length)
    #else
      Darwin.connect(socket, address, length)
    #endif
  }

  package static func send(_ socket: CInt, _ bytes: UnsafeRawBufferPointer) -> Int {
    #if canImport(Glibc)
      Glibc.send(socket, bytes.baseAddress, bytes.count, CInt(MSG_NOSIGNAL))
    #else
      Darwin.send(socket, bytes.baseAddress, bytes.count, 0)
    #endif
  }

  package static func close(_ socket: CInt) {
    #if canImport(Glibc)
      _ = Glibc.close(socket)
    #else
      _ = Darwin.close(socket)
    #endif
  }
}
