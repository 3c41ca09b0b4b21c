import Foundation

/// Runs `read` on a thread of its own, as an event loop calls the seam:
/// the cluster store's synchronous reads of etcd's history wait on a task,
/// which a blocked cooperative thread could starve (2 threads here).
func offThePool<T: Sendable>(_ read: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        Thread { continuation.resume(with: Result { try read() }) }.start()
    }
}
