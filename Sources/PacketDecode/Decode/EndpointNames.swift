import PacketCapture

/// "10.0.0.2:50000" for an endpoint, remembered for the few endpoints a
/// capture keeps using: formatting an address per message cost more than
/// decoding the message.
struct EndpointNames {
  private var names = RecentTable<Endpoint, String>(capacity: 16)

  package mutating func name(_ endpoint: Endpoint) -> String {
    if let name = names.value(for: endpoint) { return name }
    let name = endpoint.description
    names.insert(name, for: endpoint)
    return name
  }
}
