import RangeTapCore
import Testing

/// `--allow-client` networks: parsing, masking and membership, IPv4-mapped peers included.
@Suite struct ClientNetworkTests {
    @Test func membership() throws {
        let lan = try ClientNetwork(parsing: "192.168.1.77/24")
        #expect(lan.description == "192.168.1.0/24")
        #expect(lan.contains(try #require(IPAddressLiteral("192.168.1.200"))))
        #expect(lan.contains(try #require(IPAddressLiteral("::ffff:192.168.1.9"))), "a dual-stack listener's view")
        #expect(!lan.contains(try #require(IPAddressLiteral("192.168.2.1"))))
        let one = try ClientNetwork(parsing: "10.0.0.7")
        let six = try #require(IPAddressLiteral("10.0.0.6"))
        #expect(one.prefixLength == 32 && !one.contains(six))
        let odd = try ClientNetwork(parsing: "10.1.2.3/23")
        let inside = try #require(IPAddressLiteral("10.1.3.255"))
        #expect(odd.description == "10.1.2.0/23" && odd.contains(inside))
        let v6 = try ClientNetwork(parsing: "fd00::/8")
        #expect(v6.contains(try #require(IPAddressLiteral("fd12::1"))))
        #expect(!v6.contains(try #require(IPAddressLiteral("10.0.0.1"))))
        #expect(try ClientNetwork(parsing: "0.0.0.0/0").contains(try #require(IPAddressLiteral("8.8.8.8"))))
    }

    @Test(arguments: [
        "", "lan", "192.168.1.0/33", "192.168.1.0/", "192.168.1/24", "fd00::/129", "10.0.0.1/-1", "10.0.0.1/+8",
    ])
    func badNetworksAreNamed(_ text: String) {
        #expect(throws: ClientNetwork.ParseError.self) { try ClientNetwork(parsing: text) }
    }
}
