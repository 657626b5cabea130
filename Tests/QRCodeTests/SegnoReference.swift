import ExternalTools
import Foundation
import QRCode

/// Asks Python's `segno` (an independent QR encoder) for reference symbols, many per process start.
enum SegnoReference {
    struct Request: Encodable {
        let data: String  // base64, so arbitrary bytes survive JSON
        let error: String  // "l", "m", "q" or "h"
        let version: Int?  // nil: segno picks the smallest that fits
        let mask: Int?  // nil: segno picks by its own scoring

        init(bytes: [UInt8], level: QRErrorCorrectionLevel, version: Int?, mask: Int?) {
            data = Data(bytes).base64EncodedString()
            error = ["l", "m", "q", "h"][level.rawValue]
            self.version = version
            self.mask = mask
        }
    }

    struct Symbol: Decodable {
        let version: Int
        let mask: Int
        /// One string of "0"/"1" per row, "1" = dark.
        let rows: [String]

        var matrix: [[Bool]] { rows.map { $0.map { $0 == "1" } } }
    }

    /// segno <= 1.6.6 appends 8 zero bits when the stream already ends on a codeword boundary
    /// (heuer/segno issues #123, #148), shifting every pad codeword by one. ISO/IEC 18004 §7.4.10
    /// adds padding bits only to reach the boundary: every script patches that one helper and keeps
    /// the rest of segno. (Python at the scripts' top level; they import segno first.)
    static let specPaddingPatch = """
        def _spec_padding_bits(buff, version, length):
            if version not in (segno.consts.VERSION_M1, segno.consts.VERSION_M3):
                buff.extend([0] * (-length % 8))
        segno.encoder.write_padding_bits = _spec_padding_bits
        """

    private static let script = """
        import base64, json, sys, segno, segno.consts, segno.encoder
        \(specPaddingPatch)
        out = []
        for case in json.load(sys.stdin):
            qr = segno.make(base64.b64decode(case["data"]), error=case["error"], version=case.get("version"),
                            mask=case.get("mask"), mode="byte", boost_error=False, micro=False)
            out.append({"version": qr.version, "mask": qr.mask,
                        "rows": ["".join("1" if module else "0" for module in row) for row in qr.matrix]})
        json.dump(out, sys.stdout)
        """

    static func symbols(for requests: [Request]) async throws -> [Symbol] {
        let input = try JSONEncoder().encode(requests)
        let output = try await ExternalTool.run(["python3", "-c", script], stdin: input)
        return try JSONDecoder().decode([Symbol].self, from: output.stdout)
    }

    /// Where two matrices first differ, for a readable failure message; nil when identical.
    static func firstDifference(_ mine: [[Bool]], _ reference: [[Bool]]) -> String? {
        guard mine.count == reference.count else { return "size \(mine.count) vs \(reference.count)" }
        for row in mine.indices {
            for column in mine[row].indices where mine[row][column] != reference[row][column] {
                return "first difference at row \(row), column \(column)"
            }
        }
        return nil
    }
}
