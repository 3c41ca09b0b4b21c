import Dispatch
import NIOCore
import NIOEmbedded
import NIOPosix
import PropdEpoll
import PropdVarlink
import Synchronization
import Testing

/// Work posted from other threads reaches the loop in order, one task per burst.
@Suite struct LoopMailboxTests {
    @Test func postsRunOnTheLoopOnlyWhenItRunsAndInPostingOrder() {
        let loop = EmbeddedEventLoop()
        let mailbox = LoopMailbox(eventLoop: loop)
        let ran = Mutex<[Int]>([])
        for n in 1...3 { mailbox.post { ran.withLock { $0.append(n) } } }
        #expect(ran.withLock { $0 } == [])
        loop.run()
        #expect(ran.withLock { $0 } == [1, 2, 3])
        // The burst is over: the next post schedules a task of its own.
        mailbox.post { ran.withLock { $0.append(4) } }
        #expect(ran.withLock { $0 } == [1, 2, 3])
        loop.run()
        #expect(ran.withLock { $0 } == [1, 2, 3, 4])
    }

    @Test func anObjectPostedAgainAndAgainRunsEachTimeInPostingOrderBesideClosures() {
        let loop = EmbeddedEventLoop()
        let mailbox = LoopMailbox(eventLoop: loop)
        let recorder = Recorder(loop: loop)
        mailbox.post { recorder.record("a") }
        mailbox.post(recorder)
        mailbox.post { recorder.record("b") }
        mailbox.post(recorder)
        #expect(recorder.log == [])
        loop.run()
        #expect(recorder.log == ["a", "work on the loop", "b", "work on the loop"])
    }

    /// Work posted as an object: records each run, and whether it ran on the loop.
    private final class Recorder: LoopMailboxWork {
        let loop: any EventLoop
        private let entries = Mutex<[String]>([])

        init(loop: any EventLoop) { self.loop = loop }

        var log: [String] { entries.withLock { $0 } }

        func record(_ entry: String) { entries.withLock { $0.append(entry) } }

        func runOnLoop() { record(loop.inEventLoop ? "work on the loop" : "work off the loop") }
    }

    @Test func postsFromAnotherThreadAllRunOnTheLoopInOrder() async throws {
        let group = try EpollEventLoopGroup(loops: 1, name: "test-loop")
        let loop = group.next()
        let mailbox = LoopMailbox(eventLoop: loop)
        let ran = Mutex<(order: [Int], offLoop: Int)>(([], 0))
        let count = 10_000
        try await withTimeout {
            await withCheckedContinuation { (finished: CheckedContinuation<Void, Never>) in
                // Posted from a thread of the concurrency pool, never the loop.
                for n in 0..<count {
                    mailbox.post {
                        let last = ran.withLock { ran in
                            ran.order.append(n)
                            if !loop.inEventLoop { ran.offLoop += 1 }
                            return ran.order.count == count
                        }
                        if last { finished.resume() }
                    }
                }
            }
        }
        let result = ran.withLock { $0 }
        #expect(result.order == Array(0..<count))
        #expect(result.offLoop == 0)
        try await group.shutdownGracefully()
    }

    @Test func postsInsideAHoldingScopeWakeTheLoopOnceTheScopeEnds() {
        let loop = EmbeddedEventLoop()
        let mailbox = LoopMailbox(eventLoop: loop)
        let ran = Mutex<[Int]>([])
        LoopMailbox.holdingWakeups {
            mailbox.post { ran.withLock { $0.append(1) } }
            // Nothing is scheduled on the loop yet: running it runs nothing.
            loop.run()
            #expect(ran.withLock { $0 } == [])
            LoopMailbox.holdingWakeups {
                mailbox.post { ran.withLock { $0.append(2) } }
            }
            // The inner scope ended; the outer one still holds the wake-up.
            loop.run()
            #expect(ran.withLock { $0 } == [])
            mailbox.post { ran.withLock { $0.append(3) } }
        }
        loop.run()
        #expect(ran.withLock { $0 } == [1, 2, 3])
        // Outside any scope a post schedules its task at once, as before.
        mailbox.post { ran.withLock { $0.append(4) } }
        loop.run()
        #expect(ran.withLock { $0 } == [1, 2, 3, 4])
    }

    @Test func aScopeHoldsOnlyThePostsOfItsOwnThread() throws {
        let group = try EpollEventLoopGroup(loops: 1, name: "test-loop")
        defer { try? group.syncShutdownGracefully() }
        let mailbox = LoopMailbox(eventLoop: group.next())
        let ran = DispatchSemaphore(value: 0)
        var outcome = DispatchTimeoutResult.timedOut
        LoopMailbox.holdingWakeups {
            // Posted from another thread while this scope is open: it wakes
            // the loop itself, or this wait would outlast its timeout.
            DispatchQueue.global().async { mailbox.post { ran.signal() } }
            outcome = ran.wait(timeout: .now() + 30)
        }
        #expect(outcome == .success)
    }

    @Test func worksForATicksEndRunTogetherInOrderAndOneHandedOverWhileTheyRunRunsAfterThem() {
        let loop = EmbeddedEventLoop()
        let mailbox = LoopMailbox(eventLoop: loop)
        let ran = Mutex<[String]>([])
        mailbox.executeAfterTick { ran.withLock { $0.append("a") } }
        mailbox.executeAfterTick {
            ran.withLock { $0.append("b") }
            mailbox.executeAfterTick { ran.withLock { $0.append("c") } }
        }
        #expect(ran.withLock { $0 } == [])
        loop.run()
        loop.run()
        #expect(ran.withLock { $0 } == ["a", "b", "c"])
        mailbox.executeAfterTick { ran.withLock { $0.append("d") } }
        loop.run()
        #expect(ran.withLock { $0 } == ["a", "b", "c", "d"])
    }

    @Test func aTaskStartedInAScopeThatPostsAfterTheScopeEndedWakesTheLoopItself() async throws {
        let group = try EpollEventLoopGroup(loops: 1, name: "test-loop")
        let mailbox = LoopMailbox(eventLoop: group.next())
        let (gate, open) = AsyncStream.makeStream(of: Void.self)
        let (ran, signalRan) = AsyncStream.makeStream(of: Void.self)
        LoopMailbox.holdingWakeups {
            // The task runs outside the scope (on a thread of the pool), and posts once it has ended.
            Task {
                for await _ in gate { break }
                mailbox.post { signalRan.yield() }
            }
        }
        open.yield()
        // Held by a scope that is over, the post would never run.
        try await withTimeout {
            for await _ in ran { return }
        }
        try await group.shutdownGracefully()
    }
}
