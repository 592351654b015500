import Foundation

/// How many datagrams the kernel dropped for this process's UDP sockets
/// because their receive queue was full: the `drops` column of
/// /proc/net/udp and /proc/net/udp6, the same counter SO_RXQ_OVFL reports
/// (NIO reads no ancillary data of that kind). Rows are matched on the
/// local port and on the socket inodes this process holds, so another
/// program's socket is never counted. nil where /proc is not there.
package enum UDPKernelDrops {
  package static func count(ports: Set<Int>) -> Int? {
    let inodes = ownSocketInodes()
    var total: Int?
    for table in ["/proc/net/udp", "/proc/net/udp6"] {
      guard let text = try? String(contentsOfFile: table, encoding: .utf8) else { continue }
      total = (total ?? 0) + drops(in: text, ports: ports, inodes: inodes)
    }
    return total
  }

  /// The drops of the rows of one table whose local port and inode match.
  package static func drops(in table: String, ports: Set<Int>, inodes: Set<UInt64>) -> Int {
    var total = 0
    // sl local_address rem_address st tx:rx tr:when retrnsmt uid timeout inode ref pointer drops
    for line in table.split(separator: "\n").dropFirst() {
      let columns = line.split(separator: " ", omittingEmptySubsequences: true)
      guard columns.count >= 13,
        let portText = columns[1].split(separator: ":").last, let port = Int(portText, radix: 16),
        ports.contains(port),
        let inode = UInt64(columns[9]), inodes.contains(inode),
        let drops = Int(columns[12])
      else { continue }
      total += drops
    }
    return total
  }

  /// The inodes of the sockets this process has open (`socket:[N]` links in /proc/self/fd).
  static func ownSocketInodes() -> Set<UInt64> {
    let directory = "/proc/self/fd"
    guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory) else { return [] }
    var inodes: Set<UInt64> = []
    for name in names {
      guard let target = try? FileManager.default.destinationOfSymbolicLink(atPath: "\(directory)/\(name)"),
        target.hasPrefix("socket:["), target.hasSuffix("]"),
        let inode = UInt64(target.dropFirst(8).dropLast())
      else { continue }
      inodes.insert(inode)
    }
    return inodes
  }
}
