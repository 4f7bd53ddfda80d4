import EmulatorCore
import Testing

@Suite struct LocalAccessTests {
    let access = LocalAccess()

    @Test func hostsNoOutsideSiteCanPointHereAreServed() {
        for host in [
            "localhost", "localhost:8080", "LOCALHOST.", "127.0.0.1:9000", "[::1]:4000", "[::1]", "10.0.2.2:9099",
            "192.168.1.20", "0.0.0.0:8080", "app.localhost:3000", "emulators:8080", "host.docker.internal:9000",
            "printer.local", "demo-default-rtdb.firebaseio.com:9000", "demo.europe-west1.firebasedatabase.app",
            "firebasestorage.googleapis.com", "203.0.113.5",
        ] {
            #expect(access.allowsHost(host), "\(host)")
        }
    }

    @Test func hostNamesOfOtherSitesAreRefused() {
        for host in [
            "evil.example", "rebind.attacker.example.com:9000", "localhost.evil.example", "firebaseio.com.evil.example",
            "", ":8080", "a b", "user@localhost", "localhost/x", "[::1", "localhost:80:80", "localhost:http",
        ] {
            #expect(!access.allowsHost(host), "\(host)")
        }
    }

    @Test func theBoundHostIsServedEvenWhenItIsAName() {
        let bound = LocalAccess(boundHost: "dev.corp.example.com")
        #expect(bound.allowsHost("dev.corp.example.com:8080"))
        #expect(bound.allowsOrigin("http://dev.corp.example.com:3000"))
        #expect(!bound.allowsHost("other.corp.example.com"))
    }

    @Test func pagesOfThisMachineAndItsNetworkAreServed() {
        for origin in [
            "http://localhost:3000", "https://localhost", "http://127.0.0.1:5173", "http://[::1]:8000",
            "http://192.168.1.20:3000", "http://10.0.2.2", "http://172.20.0.3:8080", "http://app.localhost:3000",
            "http://devbox:3000", "http://[fd00::1]:80", "http://[fe80::1]", "chrome-extension://abcdef",
        ] {
            #expect(access.allowsOrigin(origin), "\(origin)")
        }
    }

    @Test func pagesOfOtherSitesAreRefused() {
        for origin in [
            "https://evil.example", "http://attacker.example.com:8080", "null", "http://203.0.113.5",
            "http://172.32.0.1", "http://[2001:db8::1]", "file://", "https://demo.firebaseio.com", "localhost:3000",
            "data:text/html", "http://localhost.evil.example",
        ] {
            #expect(!access.allowsOrigin(origin), "\(origin)")
        }
    }

    @Test func refusalNamesWhatWasRefused() {
        #expect(access.refusal(host: "localhost:8080", origin: nil) == nil)
        #expect(access.refusal(host: nil, origin: nil) == nil, "HTTP/1.0 has no Host")
        #expect(access.refusal(host: "evil.example", origin: nil)?.contains("'evil.example'") == true)
        #expect(access.refusal(host: "localhost", origin: "null")?.contains("origin 'null'") == true)
    }

    /// Answers are remembered per bound host: a copy bound elsewhere, sharing the memory, answers for its own.
    @Test func rememberedAnswersStayThoseOfTheBoundHost() {
        let named = LocalAccess(boundHost: "devbox.example.com")
        for _ in 0..<3 {
            #expect(access.refusal(host: "devbox.example.com", origin: nil) != nil)
            #expect(named.refusal(host: "devbox.example.com", origin: nil) == nil)
        }
        var rebound = named
        rebound.boundHost = "other.example.com"
        #expect(rebound.refusal(host: "devbox.example.com", origin: nil) != nil)
        #expect(named.refusal(host: "devbox.example.com", origin: nil) == nil)
        #expect(rebound != named)
        #expect(named == LocalAccess(boundHost: "DEVBOX.example.com."))
    }

    /// More distinct requests than are remembered still get the right answers.
    @Test func answersStayRightPastWhatIsRemembered() {
        for index in 0..<600 {
            let host = index.isMultiple(of: 2) ? "host\(index).localhost" : "site\(index).example"
            #expect((access.refusal(host: host, origin: nil) == nil) == index.isMultiple(of: 2), "\(host)")
        }
    }
}
