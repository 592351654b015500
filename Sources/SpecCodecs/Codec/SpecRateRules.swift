import PacketKit

/// `analyze`'s rules for a spec codec: each message kind with a rate is a
/// series counted against it, by direction.
final class SpecRateRules: FlowRules {
  let codec: String
  let rates: [String: (rate: ExpectedRate, direction: String?)]

  init(codec: String, rates: [String: (rate: ExpectedRate, direction: String?)]) {
    self.codec = codec
    self.rates = rates
  }

  func observe(_ message: FlowMessage, flow: any FlowContext) {
    guard message.codec == codec, message.event == nil, let kind = message.message, let rate = rates[kind]
    else {
      return
    }
    flow.count(kind, direction: rate.direction, expected: rate.rate, frame: message.frame, time: message.time)
  }
}

extension SpecProgram {
  func makeRules() -> [any FlowRules] {
    var rates: [String: (rate: ExpectedRate, direction: String?)] = [:]
    for message in kinds {
      guard let rate = message.rate else { continue }
      let rule = "\(name).\(rate.rule)"
      let expected =
        rate.perInterval
        ? ExpectedRate(
          text: rate.text, lowHz: rate.lowHz, highHz: rate.highHz, pauseAfter: nil, rule: rule,
          minimumIntervals: 1,
          intervalSlack: 0.05)
        : ExpectedRate(
          text: rate.text, lowHz: rate.lowHz, highHz: rate.highHz,
          pauseAfter: 4 / ((rate.lowHz + rate.highHz) / 2),
          rule: rule)
      let direction: String? =
        switch message.direction {
        case .appToDevice: "app → device"
        case .deviceToApp: "device → app"
        case .either: nil
        }
      rates[message.name] = (expected, direction)
    }
    return rates.isEmpty ? [] : [SpecRateRules(codec: name, rates: rates)]
  }
}
