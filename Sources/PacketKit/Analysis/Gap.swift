/// The silence between two consecutive messages of a series.
public struct Gap: Sendable {
  public var seconds: Double
  public var fromFrame: Int?
  public var toFrame: Int?
  public var fromTime: Double
  public var toTime: Double

  public init(seconds: Double, fromFrame: Int?, toFrame: Int?, fromTime: Double, toTime: Double) {
    self.seconds = seconds
    self.fromFrame = fromFrame
    self.toFrame = toFrame
    self.fromTime = fromTime
    self.toTime = toTime
  }
}
