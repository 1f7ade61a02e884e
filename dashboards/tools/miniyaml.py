"""A small YAML reader for the project's own rule, test and provisioning files (stdlib only).

Supports the block style these files use: mappings, sequences (also "key:\\n- item" at the
same indent), plain / single-quoted / double-quoted scalars, block scalars (| |- > >-), flow
collections ([a, b], {k: v}, [], {}) and comments. Scalars are returned as strings (None for
an empty value or ~/null); nothing is converted to numbers or booleans. Anchors, aliases, tags,
multi-line plain scalars and multiple documents are rejected with YamlError instead of being
misread.
"""

import re


class YamlError(ValueError):
    pass


_KEY_RE = re.compile(r"""^(?:"(?:[^"\\]|\\.)*"|'(?:[^']|'')*'|[^'"\s#\-\[\]{}][^:#]*?|-[^\s:][^:#]*?)\s*:(?:\s|$)""")


def load(text, name="<yaml>"):
    return _Parser(text, name).parse()


def load_file(path):
    with open(path, encoding="utf-8") as f:
        return load(f.read(), path)


def _strip_comment(s):
    """Removes a trailing ' # comment' that is outside quotes."""
    quote = None
    i = 0
    while i < len(s):
        c = s[i]
        if quote:
            if c == "\\" and quote == '"':
                i += 2
                continue
            if c == quote:
                quote = None
        elif c in "\"'" and (i == 0 or s[i - 1] in " \t[{,:"):
            quote = c
        elif c == "#" and (i == 0 or s[i - 1] in " \t"):
            return s[:i].rstrip()
        i += 1
    return s.rstrip()


def _unquote_double(s, err):
    out = []
    i = 0
    esc = {"n": "\n", "t": "\t", "\\": "\\", '"': '"', "/": "/", "0": "\0", "r": "\r", " ": " "}
    while i < len(s):
        c = s[i]
        if c == "\\":
            if i + 1 >= len(s):
                raise err("dangling backslash")
            n = s[i + 1]
            if n in esc:
                out.append(esc[n])
                i += 2
            elif n == "x":
                out.append(chr(int(s[i + 2:i + 4], 16)))
                i += 4
            elif n == "u":
                out.append(chr(int(s[i + 2:i + 6], 16)))
                i += 6
            else:
                raise err("unsupported escape \\" + n)
        else:
            out.append(c)
            i += 1
    return "".join(out)


class _Parser:
    def __init__(self, text, name):
        self.name = name
        self.lines = text.replace("\t", "    ").split("\n")
        self.i = 0

    def err(self, msg, line=None):
        n = (self.i if line is None else line) + 1
        return YamlError(f"{self.name}:{n}: {msg}")

    # --- line helpers -------------------------------------------------------------------------
    def _significant(self, j):
        s = self.lines[j]
        t = s.strip()
        return t != "" and not t.startswith("#")

    def peek(self):
        """(index, indent, content) of the next significant line, or None."""
        j = self.i
        while j < len(self.lines):
            if self._significant(j):
                s = self.lines[j]
                ind = len(s) - len(s.lstrip(" "))
                content = s[ind:]
                if content.startswith("---") or content.startswith("..."):
                    if j == 0 or content.strip() in ("---", "..."):
                        if any(self._significant(k) for k in range(0, j)):
                            raise self.err("multiple documents are not supported", j)
                        self.lines[j] = ""
                        j += 1
                        continue
                return j, ind, content
            j += 1
        return None

    # --- parsing ------------------------------------------------------------------------------
    def parse(self):
        p = self.peek()
        if p is None:
            return None
        node = self.parse_node(p[1])
        rest = self.peek()
        if rest is not None:
            raise self.err("unexpected content (bad indentation?)", rest[0])
        return node

    def parse_node(self, indent):
        p = self.peek()
        if p is None:
            return None
        j, ind, content = p
        if ind < indent:
            return None
        if content == "-" or content.startswith("- "):
            return self.parse_seq(ind)
        if _KEY_RE.match(content):
            return self.parse_map(ind)
        self.i = j + 1
        value = self.parse_inline(_strip_comment(content), j)
        self._no_continuation(ind, j)
        return value

    def _no_continuation(self, indent, j):
        p = self.peek()
        if p is not None and p[1] > indent:
            raise self.err("multi-line plain scalars are not supported", p[0])

    def parse_seq(self, indent):
        items = []
        while True:
            p = self.peek()
            if p is None:
                break
            j, ind, content = p
            if ind != indent or not (content == "-" or content.startswith("- ")):
                if ind > indent:
                    raise self.err("bad indentation in sequence", j)
                break
            rest = content[1:].lstrip(" ")
            if rest == "" or rest.startswith("#"):
                self.i = j + 1
                nxt = self.peek()
                items.append(self.parse_node(indent + 1) if nxt and nxt[1] > indent else None)
                continue
            col = indent + (len(content) - len(rest))
            if rest.startswith("- ") or _KEY_RE.match(rest):
                self.lines[j] = " " * col + rest  # re-read the item as a block node at its column
                self.i = j
                items.append(self.parse_node(col))
            else:
                self.i = j + 1
                items.append(self.parse_inline(_strip_comment(rest), j))
                self._no_continuation(indent, j)
        return items

    def parse_map(self, indent):
        out = {}
        while True:
            p = self.peek()
            if p is None:
                break
            j, ind, content = p
            if ind != indent:
                if ind > indent:
                    raise self.err("bad indentation in mapping", j)
                break
            if content == "-" or content.startswith("- "):
                break
            m = _KEY_RE.match(content)
            if not m:
                raise self.err(f"expected 'key: value', got {content!r}", j)
            raw_key = m.group(0).rstrip()[:-1].rstrip()
            key = self.parse_scalar(raw_key, j)
            if key in out:
                raise self.err(f"duplicate key {key!r}", j)
            value = _strip_comment(content[m.end():].strip()) if m.end() < len(content) else ""
            value = value.strip()
            self.i = j + 1
            if value == "":
                nxt = self.peek()
                if nxt and nxt[1] > indent:
                    out[key] = self.parse_node(indent + 1)
                elif nxt and nxt[1] == indent and (nxt[2] == "-" or nxt[2].startswith("- ")):
                    out[key] = self.parse_seq(indent)
                else:
                    out[key] = None
            elif value[0] in "|>":
                out[key] = self.parse_block_scalar(value, indent, j)
            else:
                out[key] = self.parse_inline(value, j)
                self._no_continuation(indent, j)
        return out

    def parse_block_scalar(self, header, indent, j):
        m = re.fullmatch(r"([|>])([+-]?)([1-9]?)([+-]?)", header)
        if not m:
            raise self.err(f"bad block scalar header {header!r}", j)
        style, chomp = m.group(1), (m.group(2) or m.group(4))
        raw = []
        k = self.i
        block_indent = None
        while k < len(self.lines):
            s = self.lines[k]
            if s.strip() == "":
                raw.append("")
                k += 1
                continue
            ind = len(s) - len(s.lstrip(" "))
            if ind <= indent:
                break
            if block_indent is None:
                block_indent = ind
            if ind < block_indent:
                raise self.err("bad indentation in block scalar", k)
            raw.append(s[block_indent:])
            k += 1
        self.i = k
        while raw and raw[-1] == "":
            raw.pop()
        if style == "|":
            text = "\n".join(raw)
        else:
            def kind(line):
                return "empty" if line == "" else ("more" if line.startswith(" ") else "normal")
            text = raw[0] if raw else ""
            for prev, line in zip(raw, raw[1:]):
                k, pk = kind(line), kind(prev)
                if k == "empty":
                    text += "\n"
                elif k == "normal" and pk == "normal":
                    text += " " + line
                elif pk == "empty":
                    text += line  # the empty line(s) already produced the break
                else:
                    text += "\n" + line  # more-indented lines keep their line breaks
        if chomp == "-":
            return text
        return text + "\n" if text else text

    def parse_inline(self, s, j):
        s = s.strip()
        if s.startswith("[") or s.startswith("{"):
            value, pos = self.parse_flow(s, 0, j)
            if s[pos:].strip():
                raise self.err(f"trailing characters after flow collection: {s[pos:]!r}", j)
            return value
        if s[:1] in ("&", "*", "!"):
            raise self.err("anchors, aliases and tags are not supported", j)
        return self.parse_scalar(s, j)

    def parse_scalar(self, s, j):
        s = s.strip()
        if s == "" or s in ("~", "null", "Null", "NULL"):
            return None
        if s[0] == '"':
            if len(s) < 2 or s[-1] != '"':
                raise self.err("unterminated double-quoted scalar", j)
            return _unquote_double(s[1:-1], lambda m: self.err(m, j))
        if s[0] == "'":
            if len(s) < 2 or s[-1] != "'":
                raise self.err("unterminated single-quoted scalar", j)
            return s[1:-1].replace("''", "'")
        return s

    def parse_flow(self, s, pos, j):
        opener = s[pos]
        closer = "]" if opener == "[" else "}"
        pos += 1
        items = [] if opener == "[" else {}
        while True:
            while pos < len(s) and s[pos] in " ,":
                pos += 1
            if pos >= len(s):
                raise self.err("unterminated flow collection", j)
            if s[pos] == closer:
                return items, pos + 1
            if opener == "[":
                value, pos = self.parse_flow_value(s, pos, j, "],")
                items.append(value)
            else:
                key, pos = self.parse_flow_value(s, pos, j, ":,}")
                while pos < len(s) and s[pos] == " ":
                    pos += 1
                if pos < len(s) and s[pos] == ":":
                    value, pos = self.parse_flow_value(s, pos + 1, j, ",}")
                else:
                    value = None
                items[key] = value

    def parse_flow_value(self, s, pos, j, stops):
        while pos < len(s) and s[pos] == " ":
            pos += 1
        if pos < len(s) and s[pos] in "[{":
            return self.parse_flow(s, pos, j)
        if pos < len(s) and s[pos] in "\"'":
            q = s[pos]
            k = pos + 1
            while k < len(s):
                if q == '"' and s[k] == "\\":
                    k += 2
                    continue
                if s[k] == q:
                    if q == "'" and k + 1 < len(s) and s[k + 1] == "'":
                        k += 2
                        continue
                    break
                k += 1
            if k >= len(s):
                raise self.err("unterminated quoted scalar in flow collection", j)
            return self.parse_scalar(s[pos:k + 1], j), k + 1
        k = pos
        while k < len(s) and s[k] not in stops:
            if s[k] == ":" and ":" in stops and (k + 1 >= len(s) or s[k + 1] not in " ,}"):
                k += 1
                continue
            k += 1
        return self.parse_scalar(s[pos:k], j), k
