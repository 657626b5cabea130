/// Runs `body` for every element, `parallel` at a time; the results in the elements' order.
func forEach<Element: Sendable, Result: Sendable>(
    _ elements: [Element],
    parallel: Int,
    _ body: @escaping @Sendable (Element) async throws -> Result
) async throws -> [Result] {
    try await withThrowingTaskGroup(of: (Int, Result).self) { group in
        var results = [Result?](repeating: nil, count: elements.count)
        var next = 0
        for _ in 0..<min(parallel, elements.count) {
            let index = next
            group.addTask { (index, try await body(elements[index])) }
            next += 1
        }
        while let (index, result) = try await group.next() {
            results[index] = result
            if next < elements.count {
                let index = next
                group.addTask { (index, try await body(elements[index])) }
                next += 1
            }
        }
        return results.map { $0! }
    }
}
