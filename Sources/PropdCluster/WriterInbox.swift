import NIOCore
import PropdStore

/// The node's writer's mailbox: every ``WriterEvent`` reaches the
/// ``WritePipeline`` on the etcd client's transaction loop, one at a time,
/// in the order posted.
///
/// The writer lives on the loop its transactions' connections live on, so
/// a request's body runs, its transaction is sent, and its reply is
/// handled without a thread hand-over between them.
final class WriterInbox: Sendable {
    let loop: any EventLoop
    /// `nil` before the writer starts and after it finished.
    private let pipeline: NIOLoopBoundBox<WritePipeline?>

    init(loop: any EventLoop) {
        self.loop = loop
        pipeline = .makeEmptyBox(eventLoop: loop)
    }

    /// Starts the writer of `storage`.
    func start(_ storage: EtcdPropertyStorage) {
        loop.execute { [pipeline] in
            pipeline.value = WritePipeline(storage: storage)
        }
    }

    /// Hands `event` to the writer, on its loop; a request posted after the
    /// writer finished is refused as closed.
    func post(_ event: WriterEvent) {
        loop.execute { [pipeline] in
            guard let writer = pipeline.value else {
                if case .submitted(let job) = event { job.refuse(StoreError.closed) }
                return
            }
            writer.handle(event)
        }
    }

    /// The writer finished (on its loop): later requests are refused.
    func writerFinished() {
        pipeline.value = nil
    }
}
