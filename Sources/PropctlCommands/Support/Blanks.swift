extension Character {
    /// Spaces, tabs and line ends: what the binding language skips.
    var isBlank: Bool { self == " " || self == "\t" || self == "\n" || self == "\r" }
}

extension StringProtocol {
    /// The text without blanks at either end.
    var trimmingBlanks: SubSequence {
        guard let first = firstIndex(where: { !$0.isBlank }), let last = lastIndex(where: { !$0.isBlank }) else {
            return self[endIndex...]
        }
        return self[first...last]
    }
}
