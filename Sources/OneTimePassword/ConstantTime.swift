/// Compares two byte strings without returning early at the first difference, so the time taken
/// does not tell an attacker how many leading bytes of a guess were right.
/// The lengths themselves are not secret here (codes have a fixed, public length).
func constantTimeEquals(_ lhs: [UInt8], _ rhs: [UInt8]) -> Bool {
    guard lhs.count == rhs.count else { return false }
    var difference: UInt8 = 0
    for index in lhs.indices {
        difference |= lhs[index] ^ rhs[index]
    }
    return difference == 0
}
