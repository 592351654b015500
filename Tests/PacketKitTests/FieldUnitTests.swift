import PacketKit
import Testing

/// A unit is a literal compared by its text, whatever way the compiler
/// stored the literal (a one-character literal may be kept as a scalar).
struct FieldUnitTests {
  @Test func equalTextsAreEqualUnitsAndHashAlike() {
    let degrees: FieldUnit = "°"
    let microseconds: FieldUnit = "µs"
    #expect(degrees == FieldUnit("°"))
    #expect(microseconds == FieldUnit("µs"))
    #expect(microseconds != "ms")
    #expect(degrees != "%")
    #expect(FieldUnit("m") != FieldUnit("mV"))
    #expect(Set<FieldUnit>(["%", "%", "°", "µs", "µs", "mV"]).count == 4)
    #expect(Set([degrees, FieldUnit("°")]).count == 1)
  }

  @Test func describesItselfInTheProtocolsWords() {
    #expect(FieldUnit("µs").description == "µs")
    #expect(FieldUnit("°").description == "°")
    #expect("\(FieldUnit("mV"))" == "mV")
  }

  @Test func nodesDifferingOnlyInUnitDiffer() {
    let pulse = DissectionNode("pulse_us", .unsigned(1500), unit: "µs", range: 4..<6)
    var other = pulse
    other.unit = "ms"
    #expect(pulse != other)
    other.unit = "µs"
    #expect(pulse == other)
    #expect(Set([pulse, other]).count == 1)
  }
}
