/// Files another user of the host could read, write or have planted: refused at start.
struct InsecurePermissions: Error, CustomStringConvertible {
    let problems: [String]

    var description: String {
        (["refusing files another user could read, write or have planted:"] + problems.map { "  " + $0 }
            + ["(--allow-insecure-permissions or KEYCHAIND_ALLOW_INSECURE_PERMISSIONS=1 uses them anyway, with a warning)"])
            .joined(separator: "\n")
    }
}
