import KeychainStorage

/// Numbered schema migrations, applied in order and recorded in `PRAGMA user_version`.
enum Migrations {
    /// Append only: a released migration never changes.
    static let steps: [String] = [
        // 1: items, their lookup digests, tokens, and keychain metadata.
        """
        CREATE TABLE meta (
            key   TEXT PRIMARY KEY,
            value BLOB NOT NULL
        ) WITHOUT ROWID;
        CREATE TABLE items (
            id          INTEGER PRIMARY KEY,
            ref         BLOB NOT NULL UNIQUE,
            class       INTEGER NOT NULL,
            grp         BLOB NOT NULL,
            pdmn        INTEGER NOT NULL,
            sync        INTEGER NOT NULL,
            cdat        INTEGER NOT NULL,
            mdat        INTEGER NOT NULL,
            version     INTEGER NOT NULL,
            pk          BLOB NOT NULL UNIQUE,
            attrs       BLOB NOT NULL,
            secret      BLOB
        );
        CREATE INDEX items_class_grp ON items(class, grp);
        CREATE TABLE lookups (
            digest  BLOB NOT NULL,
            item_id INTEGER NOT NULL,
            PRIMARY KEY (digest, item_id)
        ) WITHOUT ROWID;
        CREATE INDEX lookups_item ON lookups(item_id);
        CREATE TABLE tokens (
            id      TEXT PRIMARY KEY,
            hash    BLOB NOT NULL UNIQUE,
            sealed  BLOB NOT NULL,
            expires INTEGER,
            created INTEGER NOT NULL
        ) WITHOUT ROWID;
        """,
        // 2: items by class in insertion order. A search of one class read a page at a time
        // (certificate match keys, identities, `matchLimit` all) names the class and `id > ?`
        // ordered by id; without this index, for a token of every group or of several, SQLite took
        // items_class_grp and sorted every item of the class again for each page.
        """
        CREATE INDEX items_class ON items(class);
        """,
        // 3: no change of tables. A string attribute's lookup digest is now only that of its
        // folded value, and an exact search compares the opened attributes; a build before it
        // would not find a newer item by its exact value, so it must refuse this database. The
        // exact-value digests of older items stay until the item changes, and match nothing.
        """
        -- lookups: digests of folded strings
        """,
    ]

    static func apply(to connection: SQLiteConnection) throws(StorageError) {
        let current = Int(try connection.scalarInt("PRAGMA user_version") ?? 0)
        guard current <= steps.count else {
            throw .corrupt("database schema version \(current) is newer than this build (\(steps.count))")
        }
        for version in current..<steps.count {
            try connection.execute("BEGIN IMMEDIATE")
            do {
                try connection.execute(steps[version])
                try connection.execute("PRAGMA user_version = \(version + 1)")
                try connection.execute("COMMIT")
            } catch {
                try? connection.execute("ROLLBACK")
                throw error
            }
        }
    }
}
