import PacketCapture

/// "10.0.0.2:50000" for an endpoint, remembered for the few endpoints a
/// capture keeps using: formatting an address per message cost more than
/// decoding the message. A small table replaced round robin, so memory stays
/// bounded whatever the capture holds.
struct EndpointNames {
  private static let capacity = 16
  private var endpoints: [Endpoint] = []
  private var names: [String] = []
  private var next = 0

  mutating func name(_ endpoint: Endpoint) -> String {
    for index in endpoints.indices where endpoints[index] == endpoint { return names[index] }
    let name = endpoint.description
    if endpoints.count < Self.capacity {
      endpoints.append(endpoint)
      names.append(name)
    } else {
      endpoints[next] = endpoint
      names[next] = name
      next = (next + 1) % Self.capacity
    }
    return name
  }
}
