import PropdBindings
import PropdCore
import Testing

/// reference/004: RAC(self.loginBtn, enabled) = [RACSignal combineLatest:@[account, password]
/// reduce:^{ account.length > 5 && password.length > 5 }], then the improved form with
/// accountValid / passwordValid signals driving the background colours and the button.
@Suite("Login form (reference 004)")
struct LoginFormTests {
    @Test("the button is enabled only when account and password are both longer than 5")
    func loginButton() throws {
        let store = Store()
        try store.bind("ui.login.enabled",
            "combineLatest(form.account, form.password).map { a, p in len(a) > 5 && len(p) > 5 }")
        // combineLatest rule 1: reduce runs only once every signal has sent a value.
        #expect(store.value("ui.login.enabled") == nil)
        store.set("form.account", "aahuang")
        #expect(store.value("ui.login.enabled") == nil)
        store.set("form.password", "aah")
        #expect(store.value("ui.login.enabled") == false)
        // Rule 2: afterwards every value of any signal runs reduce with the latest of each.
        store.set("form.password", "aahuang")
        #expect(store.value("ui.login.enabled") == true)
        store.set("form.account", "aa")
        #expect(store.value("ui.login.enabled") == false)
        #expect(store.history("ui.login.enabled") == [false, true, false])
    }

    @Test("the improved form: valid signals drive colours and the button")
    func improvedForm() throws {
        let store = Store()
        store.set([("form.account", ""), ("form.password", "")])
        try store.bind("form.accountValid", "form.account.map { len($0) > 5 }")
        try store.bind("form.passwordValid", "form.password.map { len($0) > 5 }")
        try store.bind("ui.account.background", #"form.accountValid.map { ok in ok ? "white" : "red" }"#)
        try store.bind("ui.password.background", #"form.passwordValid.map { ok in ok ? "white" : "red" }"#)
        try store.bind("ui.login.enabled",
            "combineLatest(form.accountValid, form.passwordValid).map { a, p in a && p }")
        #expect(store.value("ui.account.background") == "red")
        #expect(store.value("ui.login.enabled") == false)

        store.set("form.account", "aahuang")
        #expect(store.value("ui.account.background") == "white")
        #expect(store.value("ui.password.background") == "red")
        #expect(store.value("ui.login.enabled") == false)

        let typed = store.set("form.password", "aahuang")
        #expect(store.value("ui.password.background") == "white")
        #expect(store.value("ui.login.enabled") == true)
        // One revision, each affected key once, sources before what they feed.
        #expect(typed.changes.map(\.key.rawValue) == ["form.passwordValid", "ui.login.enabled", "ui.password.background"]
            || typed.changes.map(\.key.rawValue) == ["form.passwordValid", "ui.password.background", "ui.login.enabled"])
    }

    @Test("a binding file declares the same form")
    func loginFormFile() throws {
        let text = """
            # reference 004, the login form
            ui.login.enabled = combineLatest(form.account, form.password)
                .map { a, p in
                    len(a) > 5 && len(p) > 5   # both longer than 5
                }
            """
        let entries = try BindingFile.parse(text, fileName: "login.prop")
        #expect(entries.count == 1)
        let store = Store()
        for entry in entries { try store.bind(entry.key.rawValue, entry.expression) }
        store.set([("form.account", "aahuang"), ("form.password", "aahuang")])
        #expect(store.value("ui.login.enabled") == true)
    }
}
