/// A set of item classes, one bit per class.
public struct ClassSet: OptionSet, Sendable, Hashable {
    public let rawValue: UInt32

    public init(rawValue: UInt32) { self.rawValue = rawValue }

    public init(_ itemClass: ItemClass) { rawValue = 1 << UInt32(itemClass.rawValue) }

    public static let genericPassword = ClassSet(.genericPassword)
    public static let internetPassword = ClassSet(.internetPassword)
    public static let certificate = ClassSet(.certificate)
    public static let key = ClassSet(.key)
    public static let identity = ClassSet(.identity)
    public static let passwords: ClassSet = [.genericPassword, .internetPassword]
    /// An identity has its certificate's attributes and its private key's (docs/semantics.md §2).
    public static let certificateAndIdentity: ClassSet = [.certificate, .identity]
    public static let keyAndIdentity: ClassSet = [.key, .identity]
    public static let all = ClassSet(ItemClass.allCases.map(ClassSet.init))

    public func contains(_ itemClass: ItemClass) -> Bool { contains(ClassSet(itemClass)) }
}
