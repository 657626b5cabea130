"""The two halves of scripts/code-layout.sh around a traced run of the server.

layout.py sections MAP SECTIONS
    Reads lld's map of an unordered link (-Map) and writes SECTIONS: one line per input section of
    the output section .text (address, size, object file, section name), and prints the addresses,
    which calltrace.c stops at. With -function-sections each function is a section of its own, named
    after its symbol, or `.text..L…` for the compiler's unnamed ones (closure contexts' destroy
    functions, thunks): those have no symbol, so lld's --symbol-ordering-file cannot place them, and
    a linker script names them by object file and section instead.

layout.py script SECTIONS HITS
    Prints the linker script: .text starts with the sections whose addresses are in HITS, in that
    order (the order the server first ran them), each named by its object file (the part of its path
    after SwiftPM's `release/`, so the script holds for any checkout) and section, then lld's default
    rules for everything else. INSERT BEFORE keeps the rest of lld's default layout.
"""
import re
import sys


# A map line: VMA, LMA, size, alignment, then the name indented by its level (an output section by
# 1 space, an input section by 9, a symbol by 17).
MAP_LINE = re.compile(r"^\s*([0-9a-f]+)\s+[0-9a-f]+\s+([0-9a-f]+)\s+\d+( +)(.*)$")


def sections(map_path, sections_path):
    inside = False
    with open(map_path) as lines, open(sections_path, "w") as out:
        for line in lines:
            match = MAP_LINE.match(line.rstrip("\n"))
            if not match:
                continue
            address, size, indent, name = match.group(1), match.group(2), len(match.group(3)), match.group(4)
            if indent == 1:
                inside = name == ".text"
                continue
            split = name.rfind(":(")
            if not inside or indent != 9 or split < 0 or int(size, 16) == 0:
                continue
            out.write(f"{address}\t{size}\t{name[:split]}\t{name[split + 2:-1]}\n")
            print(address)


def script(sections_path, hits_path):
    by_address = {}
    for line in open(sections_path):
        address, size, obj, section = line.rstrip("\n").split("\t")
        by_address[int(address, 16)] = (int(size, 16), obj, section)
    placed, lines, size_placed = set(), [], 0
    for line in open(hits_path):
        address = int(line, 16)
        if address in placed or address not in by_address:
            continue
        placed.add(address)
        size, obj, section = by_address[address]
        size_placed += size
        relative = obj.rsplit("/release/", 1)[1] if "/release/" in obj else obj.rsplit("/", 1)[-1]
        lines.append(f"    */{relative}({section})")
    print(f"# Written by scripts/code-layout.sh: {len(lines)} functions a release server ran, {size_placed / 1048576:.1f} MiB.")
    print("SECTIONS {\n  .text : {")
    print("\n".join(lines))
    print("""    *(.text.unlikely .text.*_unlikely .text.unlikely.*)
    *(.text.exit .text.exit.*)
    *(.text.startup .text.startup.*)
    *(.text.hot .text.hot.*)
    *(.text .stub .text.*)
  }
}
INSERT BEFORE .init;""")
    print(f"{len(lines)} functions, {size_placed / 1048576:.2f} MiB of code", file=sys.stderr)


if __name__ == "__main__":
    {"sections": sections, "script": script}[sys.argv[1]](*sys.argv[2:])
