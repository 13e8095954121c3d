/// One column of a `ParquetWriter`'s table: its name in the schema and its type.
public struct ParquetColumn: Sendable, Equatable {
    /// The column's name (a leaf of the schema's root).
    public var name: String
    /// Its physical and logical type.
    public var type: ParquetColumnType

    /// A column named `name` of type `type`.
    public init(_ name: String, _ type: ParquetColumnType) {
        self.name = name
        self.type = type
    }
}
