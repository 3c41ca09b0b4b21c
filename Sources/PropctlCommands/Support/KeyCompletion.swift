import PropdClient
import PropdCore

/// Shell completion of keys and patterns from the running daemon: the bash,
/// zsh and fish scripts that ArgumentParser generates call back into
/// propctl, which lists the keys under what has been typed so far. When no
/// daemon answers, nothing is offered (completion never prints errors).
enum KeyCompletion {
    /// Most candidates one completion offers.
    static let limit = 500

    /// Keys starting with the word being typed; patterns when the word is the
    /// value of `--pattern` (the generated bash script asks this function for
    /// `del --pattern`'s value too).
    @Sendable static func keys(_ words: [String], _ index: Int, _ prefix: String) async -> [String] {
        if index > 0, index - 1 < words.count, words[index - 1] == "--pattern" {
            return await patterns(words, index, prefix)
        }
        return await existingKeys(words, prefix).filter { $0.hasPrefix(prefix) }
    }

    /// Keys, and the patterns `x.*` / `x.**` for each key's parent segments.
    @Sendable static func patterns(_ words: [String], _ index: Int, _ prefix: String) async -> [String] {
        var candidates: Set<String> = ["**"]
        for key in await existingKeys(words, prefix) {
            candidates.insert(key)
            var segments = key.split(separator: ".").map(String.init)
            while segments.count > 1 {
                segments.removeLast()
                let parent = segments.joined(separator: ".")
                candidates.insert(parent + ".*")
                candidates.insert(parent + ".**")
            }
        }
        return candidates.filter { $0.hasPrefix(prefix) }.sorted()
    }

    /// The keys under the typed prefix's complete segments (`room.te` lists `room.**`).
    static func existingKeys(_ words: [String], _ prefix: String) async -> [String] {
        let socket = SocketChoice(flag: socketFlag(in: words))
        guard let client = try? await PropdClient.connect(to: socket.path, transport: .blockingSocket) else { return [] }
        var pattern: String? = nil
        if let dot = prefix.lastIndex(of: ".") {
            let parent = String(prefix[..<dot])
            if (try? KeyPattern(parent + ".**")) != nil { pattern = parent + ".**" }
        }
        let listed = try? await client.list(pattern, limit: limit)
        await client.close()
        return listed?.properties.map(\.key.rawValue) ?? []
    }

    /// `--socket PATH` or `--socket=PATH` among the words typed so far.
    static func socketFlag(in words: [String]) -> String? {
        for (i, word) in words.enumerated() {
            if word == "--socket", i + 1 < words.count { return words[i + 1] }
            if word.hasPrefix("--socket=") { return String(word.dropFirst("--socket=".count)) }
        }
        return nil
    }
}
