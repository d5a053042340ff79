import KeychainStorage

/// Numbered schema migrations, applied in order under a session advisory lock (replicas starting
/// together wait for each other instead of racing) and recorded in `keychaind_schema`.
enum PostgresMigrations {
    /// The advisory lock key migrations take: "kcdschem" as eight bytes.
    static let lockKey: Int64 = 0x6B63_6473_6368_656D

    /// Append only: a released migration never changes. The tables mirror SQLite's; integers are
    /// `bigint` throughout, which the binary protocol reads as eight bytes.
    static let steps: [String] = [
        // 1: items, their lookup digests, tokens, and keychain metadata.
        """
        CREATE TABLE meta (
            key   text PRIMARY KEY,
            value bytea NOT NULL
        );
        CREATE TABLE items (
            id      bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
            ref     bytea NOT NULL UNIQUE,
            class   bigint NOT NULL,
            grp     bytea NOT NULL,
            pdmn    bigint NOT NULL,
            sync    bigint NOT NULL,
            cdat    bigint NOT NULL,
            mdat    bigint NOT NULL,
            version bigint NOT NULL,
            pk      bytea NOT NULL UNIQUE,
            attrs   bytea NOT NULL,
            secret  bytea
        );
        CREATE INDEX items_class_grp ON items (class, grp);
        CREATE TABLE lookups (
            digest  bytea NOT NULL,
            item_id bigint NOT NULL,
            PRIMARY KEY (digest, item_id)
        );
        CREATE INDEX lookups_item ON lookups (item_id);
        CREATE TABLE tokens (
            id      text PRIMARY KEY,
            hash    bytea NOT NULL UNIQUE,
            sealed  bytea NOT NULL,
            expires bigint,
            created bigint NOT NULL
        );
        """,
        // 2: each item keeps its lookup digests, so that deleting them probes the primary key
        // (digest, item_id) and lookups need no index by item: an add then writes five index
        // entries fewer.
        """
        ALTER TABLE items ADD COLUMN digests bytea[] NOT NULL DEFAULT '{}';
        UPDATE items SET digests = l.digests
            FROM (SELECT item_id, array_agg(digest) AS digests FROM lookups GROUP BY item_id) l
            WHERE items.id = l.item_id;
        DROP INDEX lookups_item;
        """,
        // 3: items by class in insertion order, for a search of one class read a page at a time
        // (`class = $1 AND id > $2 ORDER BY id LIMIT n`), as SQLite's migration 2.
        """
        CREATE INDEX items_class_id ON items (class, id);
        """,
        // 4: no change of tables, as SQLite's migration 3: a string attribute's lookup digest is
        // only that of its folded value, which a build before it does not know.
        """
        COMMENT ON TABLE lookups IS 'keyed digests of attribute values, strings case-folded';
        """,
        // 5: the events every replica reads (`SharedEventLog`); the default keychain's schema
        // holds them for every keychain.
        """
        CREATE TABLE keychaind_events (
            seq      bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
            keychain text NOT NULL,
            sealed   bytea NOT NULL
        );
        """,
        // 6: events appended without a lock, and placed once committed
        // (`PostgresStore.placeEvents`); those already there were appended in commit order.
        """
        ALTER TABLE keychaind_events ADD COLUMN pos bigint UNIQUE;
        UPDATE keychaind_events SET pos = seq;
        CREATE INDEX keychaind_events_unplaced ON keychaind_events (seq) WHERE pos IS NULL;
        """,
    ]

    static func apply(on connection: PGConnection) throws(StorageError) {
        try connection.execute("SELECT pg_advisory_lock(\(lockKey))")
        defer { _ = try? connection.execute("SELECT pg_advisory_unlock(\(lockKey))") }
        try connection.execute("CREATE TABLE IF NOT EXISTS keychaind_schema (version bigint NOT NULL)")
        let current = try Int(connection.execute("SELECT coalesce(max(version), 0) FROM keychaind_schema").text(0, 0) ?? "0") ?? 0
        guard current <= steps.count else {
            throw .corrupt("database schema version \(current) is newer than this build (\(steps.count))")
        }
        for version in current..<steps.count {
            try connection.execute("BEGIN")
            do {
                try connection.execute(steps[version])
                try connection.execute("INSERT INTO keychaind_schema (version) VALUES (\(version + 1))")
                try connection.execute("COMMIT")
            } catch {
                _ = try? connection.execute("ROLLBACK")
                throw error
            }
        }
    }
}
