import KeychainClient

/// The OSStatus `body` throws, or `nil` when it does not throw.
func status(of body: () async throws -> Void) async -> OSStatus? {
    do {
        try await body()
        return nil
    } catch let error as KeychainError {
        return error.status
    } catch {
        return nil
    }
}
