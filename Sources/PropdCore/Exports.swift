// Every user of propd's values also needs the JSON value type; re-exporting it
// keeps `import PropdCore` sufficient.
@_exported public import PropdJSON
