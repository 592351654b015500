import PacketKit
