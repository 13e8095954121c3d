/// One column of a `ParquetWriter`'s table: its name in the schema and its type.
package struct ParquetColumn: Sendable, Equatable {
    /// The column's name (a leaf of the schema's root).
    package var name: String
    /// Its physical and logical type.
    package var type: ParquetColumnType

    /// A column named `name` of type `type`.
    package init(_ name: String, _ type: ParquetColumnType) {
        self.name = name
        self.type = type
    }
}
