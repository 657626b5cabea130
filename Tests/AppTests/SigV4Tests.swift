@testable import App
@testable import SelfieCore
import Foundation
import Testing

/// AWS's published examples: the signer must reproduce their signatures exactly.
@Suite("SigV4 known answers")
struct SigV4Tests {
    /// aws-sig-v4-test-suite: credentials, region, service and time shared by its vectors.
    let suite = SigV4Signer(
        credentials: AWSCredentials(accessKeyID: "AKIDEXAMPLE", secretAccessKey: "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY"),
        region: "us-east-1",
        service: "service"
    )
    let suiteDate = Date(timeIntervalSince1970: 1_440_938_160)  // 20150830T123600Z

    /// The S3 developer guide's examples (examplebucket, 24 May 2013).
    let s3 = SigV4Signer(
        credentials: AWSCredentials(accessKeyID: "AKIAIOSFODNN7EXAMPLE", secretAccessKey: "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"),
        region: "us-east-1",
        service: "s3"
    )
    let s3Date = Date(timeIntervalSince1970: 1_369_353_600)  // 20130524T000000Z
    let s3Host = "examplebucket.s3.amazonaws.com"

    func authorization(_ headers: [(String, String)]) -> String? {
        headers.first { $0.0 == "Authorization" }?.1
    }

    @Test("get-vanilla")
    func getVanilla() {
        let headers = suite.signedHeaders(
            for: SignableRequest(method: "GET", host: "example.amazonaws.com", path: "/"),
            payloadHash: SigV4Signer.emptyPayloadHash,
            date: suiteDate
        )
        #expect(
            authorization(headers)
                == "AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20150830/us-east-1/service/aws4_request, SignedHeaders=host;x-amz-date, Signature=5fa00fa31553b73ebf1942676e86291e8372ff2a2260956d9b8aae1d763fbf31"
        )
        #expect(headers.contains { $0 == ("X-Amz-Date", "20150830T123600Z") })
    }

    @Test("get-vanilla-query-order-key-case: the query is sorted before signing")
    func queryOrder() {
        let headers = suite.signedHeaders(
            for: SignableRequest(method: "GET", host: "example.amazonaws.com", path: "/", query: [("Param2", "value2"), ("Param1", "value1")]),
            payloadHash: SigV4Signer.emptyPayloadHash,
            date: suiteDate
        )
        #expect(authorization(headers)?.hasSuffix("Signature=b97d918cfa904a5beff61c982a1b6f458b799221646efd99d3219ec94cdf2500") == true)
    }

    @Test("S3 GET Object with a Range header")
    func s3GetObject() {
        let headers = s3.signedHeaders(
            for: SignableRequest(
                method: "GET",
                host: s3Host,
                path: "/test.txt",
                headers: [("Range", "bytes=0-9"), ("x-amz-content-sha256", SigV4Signer.emptyPayloadHash)]
            ),
            payloadHash: SigV4Signer.emptyPayloadHash,
            date: s3Date
        )
        #expect(
            authorization(headers)
                == "AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request, SignedHeaders=host;range;x-amz-content-sha256;x-amz-date, Signature=f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41"
        )
    }

    @Test("S3 PUT Object: payload hash signed, `$` in the key encoded")
    func s3PutObject() {
        let payloadHash = SigV4Signer.hexSHA256(Data("Welcome to Amazon S3.".utf8))
        #expect(payloadHash == "44ce7dd67c959e0d3524ffac1771dfbba87d2b6b4b4e99e42034a8b803f8b072")
        let headers = s3.signedHeaders(
            for: SignableRequest(
                method: "PUT",
                host: s3Host,
                path: "/" + SigV4Signer.uriEncode("test$file.text", encodeSlash: false),
                headers: [
                    ("Date", "Fri, 24 May 2013 00:00:00 GMT"),
                    ("x-amz-storage-class", "REDUCED_REDUNDANCY"),
                    ("x-amz-content-sha256", payloadHash),
                ]
            ),
            payloadHash: payloadHash,
            date: s3Date
        )
        #expect(authorization(headers)?.hasSuffix("Signature=98ad721746da40c64f1a55b78f14c238d841ea1380cd77a1b5971af0ece108bd") == true)
    }

    @Test("S3 GET Bucket (list objects) with a query")
    func s3ListObjects() {
        let headers = s3.signedHeaders(
            for: SignableRequest(
                method: "GET",
                host: s3Host,
                path: "/",
                query: [("max-keys", "2"), ("prefix", "J")],
                headers: [("x-amz-content-sha256", SigV4Signer.emptyPayloadHash)]
            ),
            payloadHash: SigV4Signer.emptyPayloadHash,
            date: s3Date
        )
        #expect(authorization(headers)?.hasSuffix("Signature=34b48302e7b5fa45bde8084f4b7868a86f0a534bc59db6670ed5711ef69dc6f7") == true)
    }

    @Test("S3 presigned GET URL")
    func s3Presigned() {
        let query = s3.presignedQuery(
            for: SignableRequest(method: "GET", host: s3Host, path: "/test.txt"),
            expires: 86400,
            date: s3Date
        )
        #expect(
            query
                == "X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=AKIAIOSFODNN7EXAMPLE%2F20130524%2Fus-east-1%2Fs3%2Faws4_request&X-Amz-Date=20130524T000000Z&X-Amz-Expires=86400&X-Amz-SignedHeaders=host&X-Amz-Signature=aeeed9bbccd4d02ee5c0109b86d86835f995330da4c265957d157751f604d404"
        )
    }

    @Test("URI encoding follows SigV4's rules")
    func uriEncoding() {
        #expect(SigV4Signer.uriEncode("a b+c/d~e", encodeSlash: false) == "a%20b%2Bc/d~e")
        #expect(SigV4Signer.uriEncode("a/b", encodeSlash: true) == "a%2Fb")
        #expect(SigV4Signer.uriEncode("ключ", encodeSlash: true) == "%D0%BA%D0%BB%D1%8E%D1%87")
    }
}
