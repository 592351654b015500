import PacketKit

/// `cameraFrame`: one JPEG with the device pose and camera intrinsics, sent
/// at up to 30 fps.
public struct FalconEyeCameraFrame: Sendable, Equatable {
  public var frameId: String
  /// Unix seconds.
  public var timestamp: Double
  /// The JPEG, sent as base64 (or the text as sent when it is not
  /// canonical base64).
  public var imageData: FalconEyeImageData
  /// 4×4, row-major.
  public var devicePose: [[Double]]
  public var intrinsics: FalconEyeIntrinsics

  public init(
    frameId: String, timestamp: Double, imageData: FalconEyeImageData,
    devicePose: [[Double]] = FalconEyeCameraFrame.identityPose, intrinsics: FalconEyeIntrinsics
  ) {
    self.frameId = frameId
    self.timestamp = timestamp
    self.imageData = imageData
    self.devicePose = devicePose
    self.intrinsics = intrinsics
  }

  public static let identityPose: [[Double]] = [[1, 0, 0, 0], [0, 1, 0, 0], [0, 0, 1, 0], [0, 0, 0, 1]]

  /// The decoded image bytes, or nil when `imageData` is not strict base64.
  public var imageBytes: [UInt8]? { imageData.imageBytes }

  /// The image of the camera frame a WebSocket message's payload holds,
  /// for tools that save it (the schema's content trait): the dissection
  /// shows only its size and first bytes.
  @Sendable public static func image(inPayload payload: [UInt8]) -> [UInt8]? {
    guard let decoded = try? FalconEyeCodec().decode(payload),
      case .cameraFrame(let frame) = decoded.message.body
    else { return nil }
    return frame.imageBytes
  }

  /// Size and first/last bytes of the image, without keeping it twice.
  public var image: FalconEyeImage? { imageBytes.map(FalconEyeImage.init) }
}

public struct FalconEyeIntrinsics: Sendable, Equatable {
  public var fx: Double
  public var fy: Double
  public var cx: Double
  public var cy: Double
  public var width: Int
  public var height: Int

  public init(fx: Double, fy: Double, cx: Double, cy: Double, width: Int, height: Int) {
    self.fx = fx
    self.fy = fy
    self.cx = cx
    self.cy = cy
    self.width = width
    self.height = height
  }

  static let keys = ["fx", "fy", "cx", "cy", "width", "height"]
}

/// What `imageData` holds: its size and first and last bytes (a JPEG starts
/// FF D8 and ends FF D9).
public struct FalconEyeImage: Sendable, Equatable {
  public var byteCount: Int
  /// Up to the first 4 bytes.
  public var head: [UInt8]
  /// Up to the last 2 bytes.
  public var tail: [UInt8]

  public init(_ bytes: [UInt8]) {
    byteCount = bytes.count
    head = Array(bytes.prefix(4))
    tail = Array(bytes.suffix(2))
  }

  public var isJPEG: Bool {
    byteCount >= 4 && head.starts(with: [0xFF, 0xD8]) && tail == [0xFF, 0xD9]
  }

  /// "6022 bytes JPEG (FF D8 … FF D9)", the dissection's value for imageData.
  public var summary: String {
    let marks = "\(Hex.spaced(head.prefix(2))) … \(Hex.spaced(tail))"
    return isJPEG ? "\(byteCount) bytes JPEG (\(marks))" : "\(byteCount) bytes, not JPEG (\(marks))"
  }
}

extension FalconEyeCameraFrame: FalconEyeInner {
  static let kind = FalconEyeKind.cameraFrame
  static let keys = ["frameId", "timestamp", "imageData", "devicePose", "intrinsics"]

  static func decode(_ value: JSONNode, _ reader: inout FalconEyeReader) throws(DecodeError)
    -> (FalconEyeCameraFrame, [DissectionNode])
  {
    var object = try reader.object(value, at: reader.root, known: keys)
    let frameId = try object.string("frameId", reader)
    let timestamp = try object.number("timestamp", reader, unit: "s")

    let imageJSON = try object.required("imageData")
    let (imageData, summary) = try image(imageJSON, &reader, at: object.keyPath("imageData"))
    object.add(reader.leaf("imageData", .string(summary), imageJSON))

    let poseJSON = try object.required("devicePose")
    let (devicePose, poseNode) = try decodePose(poseJSON, object.path("devicePose"), reader)
    object.add(poseNode)

    let intrinsicsJSON = try object.required("intrinsics")
    let intrinsicsPath = object.path("intrinsics")
    var inner = try reader.object(intrinsicsJSON, at: intrinsicsPath, known: FalconEyeIntrinsics.keys)
    let intrinsics = FalconEyeIntrinsics(
      fx: try inner.number("fx", reader, unit: "px"), fy: try inner.number("fy", reader, unit: "px"),
      cx: try inner.number("cx", reader, unit: "px"), cy: try inner.number("cy", reader, unit: "px"),
      width: try inner.integer("width", reader, unit: "px"),
      height: try inner.integer("height", reader, unit: "px"))
    object.add(reader.group("intrinsics", shape: .object, intrinsicsJSON, inner.nodes))

    let frame = FalconEyeCameraFrame(
      frameId: frameId, timestamp: timestamp, imageData: imageData, devicePose: devicePose,
      intrinsics: intrinsics)
    return (frame, object.nodes)
  }

  /// imageData and its leaf's value: read in place when the string's bytes
  /// are its text (no escapes, all ASCII), as a camera frame's are.
  private static func image(
    _ json: JSONNode, _ reader: inout FalconEyeReader, at path: @autoclosure () -> String
  ) throws(DecodeError) -> (FalconEyeImageData, String) {
    if let verbatim = json.verbatimBytes { return image(text: verbatim, &reader, json) }
    var text = try reader.string(json, at: path())
    return text.withUTF8 { image(text: UnsafeRawBufferPointer($0), &reader, json) }
  }

  /// The image data of `text`, decoded in one pass, and the leaf's value;
  /// warns when it is not a base64 JPEG.
  private static func image(text: UnsafeRawBufferPointer, _ reader: inout FalconEyeReader, _ json: JSONNode)
    -> (FalconEyeImageData, String)
  {
    let (imageData, decoded) = FalconEyeImageData.reading(text)
    let bytes: [UInt8]
    switch decoded {
    case .success(let decoded):
      bytes = decoded
    case .failure(let error):
      reader.warn(
        "not-jpeg",
        "imageData is not base64 (character \(error.index): \(error.reason)); the server cannot decode the frame",
        json)
      return (imageData, "not base64 (\(text.count) characters)")
    }
    let image = FalconEyeImage(bytes)
    if !image.isJPEG {
      reader.warn(
        "not-jpeg",
        "imageData is \(image.byteCount) bytes starting \(Hex.spaced(image.head.prefix(2))) and ending "
          + "\(Hex.spaced(image.tail)); a JPEG starts FF D8 and ends FF D9",
        json)
    }
    return (imageData, image.summary)
  }

  /// devicePose must be 4 rows of 4 numbers: the app reads it as a simd_float4x4.
  private static func decodePose(_ json: JSONNode, _ path: FalconEyeKeyPath, _ reader: FalconEyeReader)
    throws(DecodeError) -> ([[Double]], DissectionNode)
  {
    let rows = try reader.array(json, at: path.description, limit: 64)
    // Every array made at its size: grown as filled, a pose took some 25
    // allocations.
    var matrix: [[Double]] = []
    var rowNodes: [DissectionNode] = []
    matrix.reserveCapacity(rows.count)
    rowNodes.reserveCapacity(rows.count)
    var badRow: JSONNode?
    var columns = 4
    for (r, rowJSON) in rows.enumerated() {
      let cells = try reader.array(rowJSON, at: path.index(r).description, limit: 64)
      var row: [Double] = []
      var cellNodes: [DissectionNode] = []
      row.reserveCapacity(cells.count)
      cellNodes.reserveCapacity(cells.count)
      for (c, cellJSON) in cells.enumerated() {
        row.append(
          try reader.number(cellJSON, at: path.index(r).index(c).description))
        cellNodes.append(reader.leaf(DissectionNode.elementName(c), cellJSON.fieldValue, cellJSON))
      }
      if cells.count != 4, badRow == nil {
        badRow = rowJSON
        columns = cells.count
      }
      matrix.append(row)
      rowNodes.append(reader.group(DissectionNode.elementName(r), shape: .array, rowJSON, cellNodes))
    }
    guard rows.count == 4, badRow == nil else {
      let offset = reader.map.wire(offset: (badRow ?? json).range.lowerBound)
      let found = "\(rows.count)×\(columns)"
      let path = path.description
      throw DecodeError(code: "bad-shape", offset: offset, keyPath: path) {
        .init("\(path) at offset \(offset) is \(found); expected a 4×4 matrix", expected: "4×4", found: found)
      }
    }
    return (matrix, reader.group("devicePose", shape: .array, json, rowNodes))
  }

  func validate(force: Bool) throws(EncodeError) {
    try FalconEyeCheck.finite(timestamp, "timestamp")
    guard devicePose.count == 4, devicePose.allSatisfy({ $0.count == 4 }) else {
      throw EncodeError(code: "bad-shape", text: "devicePose must be a 4×4 matrix", field: "devicePose")
    }
    for value in devicePose.joined() { try FalconEyeCheck.finite(value, "devicePose") }
    try FalconEyeCheck.finite(intrinsics.fx, "fx")
    try FalconEyeCheck.finite(intrinsics.fy, "fy")
    try FalconEyeCheck.finite(intrinsics.cx, "cx")
    try FalconEyeCheck.finite(intrinsics.cy, "cy")
  }

  func write(to writer: inout JSONWriter) {
    writer.raw("{\"frameId\":")
    writer.string(frameId)
    writer.raw(",\"timestamp\":")
    writer.number(timestamp)
    writer.raw(",\"imageData\":")
    imageData.write(to: &writer)
    writer.raw(",\"devicePose\":[")
    for (r, row) in devicePose.enumerated() {
      if r > 0 { writer.raw(",") }
      writer.raw("[")
      for (c, value) in row.enumerated() {
        if c > 0 { writer.raw(",") }
        writer.number(value)
      }
      writer.raw("]")
    }
    writer.raw("],\"intrinsics\":{\"fx\":")
    writer.number(intrinsics.fx)
    writer.raw(",\"fy\":")
    writer.number(intrinsics.fy)
    writer.raw(",\"cx\":")
    writer.number(intrinsics.cx)
    writer.raw(",\"cy\":")
    writer.number(intrinsics.cy)
    writer.raw(",\"width\":")
    writer.integer(intrinsics.width)
    writer.raw(",\"height\":")
    writer.integer(intrinsics.height)
    writer.raw("}}")
  }
}
