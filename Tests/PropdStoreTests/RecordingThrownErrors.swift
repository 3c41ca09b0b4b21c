import Testing

/// Runs `body`, recording what it throws as a failure of the test.
///
/// For the bodies of `propertyCheck`: PropertyBased runs a body under
/// `try?`, so an error thrown from one would end that input silently and
/// the check would pass.
func recordingThrownErrors(
    sourceLocation: SourceLocation = #_sourceLocation, _ body: () async throws -> Void
) async {
    do {
        try await body()
    } catch {
        Issue.record(error, "thrown by a property check's body", sourceLocation: sourceLocation)
    }
}
