import Testing

@testable import MicroHTTP

@Suite("RequestFraming: the framing headers' verdict")
struct RequestFramingTests {
    private func verdict(_ headers: [(String, String)], max: Int = 100) -> RequestFraming.Verdict {
        RequestFraming.check(HTTPHeaders(headers.map { (name: $0.0, value: $0.1) }), maxBodyBytes: max)
    }

    @Test func noBodyHeadersMeanNoBody() {
        #expect(verdict([("Host", "a")]) == .accept(RequestFraming(declaredLength: nil, isChunked: false)))
    }

    @Test func declaredLengthUpToTheLimitIsAccepted() {
        #expect(verdict([("content-length", " 100 ")]) == .accept(RequestFraming(declaredLength: 100, isChunked: false)))
        #expect(verdict([("Content-Length", "101")]) == .refuse(.bodyTooLarge(limit: 100)))
    }

    @Test func chunkedIsTheOnlyTransferEncoding() {
        #expect(verdict([("Transfer-Encoding", "Chunked")]) == .accept(RequestFraming(declaredLength: nil, isChunked: true)))
        #expect(verdict([("Transfer-Encoding", "gzip")]) == .refuse(.malformedFraming("Transfer-Encoding other than chunked")))
        #expect(
            verdict([("Transfer-Encoding", "chunked"), ("Transfer-Encoding", "chunked")])
                == .refuse(.malformedFraming("Transfer-Encoding other than chunked")))
    }

    @Test func smugglingShapesAreRefused() {
        #expect(
            verdict([("Content-Length", "5"), ("Transfer-Encoding", "chunked")])
                == .refuse(.malformedFraming("Content-Length with Transfer-Encoding")))
        #expect(
            verdict([("Content-Length", "5"), ("content-length", "5")])
                == .refuse(.malformedFraming("more than one Content-Length")))
        #expect(verdict([("Host", "a"), ("HOST", "a")]) == .refuse(.malformedFraming("more than one Host")))
    }

    @Test(arguments: ["", "-1", "+1", "1,1", "1 1", "0x10", "99999999999999999999999"])
    func unparsableLengthsAreRefused(text: String) {
        #expect(RequestFraming.parseContentLength(text) == nil)
        #expect(verdict([("Content-Length", text)]) == .refuse(.malformedFraming("unparsable Content-Length")))
    }
}
