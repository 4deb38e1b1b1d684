//! A reader of Godot's text resource format (`.tres`), enough to check the structure of the
//! `SpriteFrames` files spritebake writes where no Godot 4 can load them: sections
//! (`[ext_resource type="Texture2D" path="walk.png" id="1"]`) with their `key = value`
//! properties, values in Godot's variant syntax (strings with escapes, `&"string names"`,
//! numbers, booleans, arrays, dictionaries, constructors such as `Rect2(0, 0, 8, 8)` and
//! `SubResource("id")`, with or without Godot 3's spaces). Anything else is a parse error
//! (a panic naming the offset), so a malformed file fails the test that reads it.

use std::collections::BTreeMap;

/// A value.
#[derive(Debug, Clone, PartialEq)]
pub enum Variant {
    Str(String),
    StringName(String),
    Number(f64),
    Bool(bool),
    Array(Vec<Variant>),
    Dict(Vec<(Variant, Variant)>),
    /// A constructor or reference: its name and arguments.
    Call(String, Vec<Variant>),
}

impl Variant {
    pub fn str(&self) -> &str {
        match self {
            Variant::Str(s) | Variant::StringName(s) => s,
            other => panic!("not a string: {other:?}"),
        }
    }

    pub fn number(&self) -> f64 {
        match self {
            Variant::Number(n) => *n,
            other => panic!("not a number: {other:?}"),
        }
    }

    pub fn array(&self) -> &[Variant] {
        match self {
            Variant::Array(a) => a,
            other => panic!("not an array: {other:?}"),
        }
    }

    /// A dictionary's value for a string key.
    pub fn get(&self, key: &str) -> &Variant {
        match self {
            Variant::Dict(entries) => {
                entries.iter().find(|(k, _)| k.str() == key).map(|(_, v)| v).unwrap_or_else(|| panic!("no {key}"))
            }
            other => panic!("not a dictionary: {other:?}"),
        }
    }

    /// A call's name and its arguments.
    pub fn call(&self) -> (&str, &[Variant]) {
        match self {
            Variant::Call(name, args) => (name, args),
            other => panic!("not a call: {other:?}"),
        }
    }

    /// `Rect2(x, y, w, h)` as integers.
    pub fn rect(&self) -> [i64; 4] {
        let (name, args) = self.call();
        assert_eq!((name, args.len()), ("Rect2", 4), "{self:?}");
        [0, 1, 2, 3].map(|i| args[i].number() as i64)
    }
}

/// One `[tag attributes]` section with its properties.
#[derive(Debug, Clone)]
pub struct Section {
    pub tag: String,
    pub attributes: BTreeMap<String, Variant>,
    pub properties: BTreeMap<String, Variant>,
}

impl Section {
    pub fn attribute(&self, key: &str) -> &Variant {
        self.attributes.get(key).unwrap_or_else(|| panic!("[{}] has no {key}", self.tag))
    }

    pub fn property(&self, key: &str) -> &Variant {
        self.properties.get(key).unwrap_or_else(|| panic!("[{}] has no property {key}", self.tag))
    }
}

/// Every section of a `.tres`, in order.
pub fn parse(text: &str) -> Vec<Section> {
    let mut p = Parser { text: text.as_bytes(), at: 0 };
    let mut sections: Vec<Section> = Vec::new();
    loop {
        p.space();
        match p.peek() {
            None => return sections,
            Some(b'[') => {
                p.at += 1;
                let tag = p.identifier();
                let mut attributes = BTreeMap::new();
                loop {
                    p.space();
                    if p.eat(b']') {
                        break;
                    }
                    let key = p.identifier();
                    p.expect(b'=');
                    attributes.insert(key, p.value());
                }
                sections.push(Section { tag, attributes, properties: BTreeMap::new() });
            }
            Some(_) => {
                let key = p.identifier();
                p.expect(b'=');
                let value = p.value();
                let section = sections.last_mut().unwrap_or_else(|| panic!("property {key} before any section"));
                assert!(section.properties.insert(key.clone(), value).is_none(), "{key} given twice");
            }
        }
    }
}

struct Parser<'a> {
    text: &'a [u8],
    at: usize,
}

impl Parser<'_> {
    fn peek(&self) -> Option<u8> {
        self.text.get(self.at).copied()
    }

    fn space(&mut self) {
        while self.peek().is_some_and(|c| c.is_ascii_whitespace()) {
            self.at += 1;
        }
    }

    fn eat(&mut self, c: u8) -> bool {
        self.space();
        let found = self.peek() == Some(c);
        self.at += usize::from(found);
        found
    }

    fn expect(&mut self, c: u8) {
        assert!(self.eat(c), "expected '{}' at byte {}", c as char, self.at);
    }

    fn identifier(&mut self) -> String {
        self.space();
        let start = self.at;
        while self.peek().is_some_and(|c| c.is_ascii_alphanumeric() || c == b'_' || c == b'/') {
            self.at += 1;
        }
        assert!(self.at > start, "expected a name at byte {start}");
        String::from_utf8(self.text[start..self.at].to_vec()).unwrap()
    }

    fn string(&mut self) -> String {
        self.expect(b'"');
        let mut bytes = Vec::new();
        loop {
            let c = self.peek().unwrap_or_else(|| panic!("unterminated string"));
            self.at += 1;
            match c {
                b'"' => return String::from_utf8(bytes).unwrap(),
                b'\\' => {
                    let e = self.peek().unwrap();
                    self.at += 1;
                    match e {
                        b'n' => bytes.push(b'\n'),
                        b't' => bytes.push(b'\t'),
                        b'r' => bytes.push(b'\r'),
                        b'u' => {
                            let hex = std::str::from_utf8(&self.text[self.at..self.at + 4]).unwrap();
                            let c = char::from_u32(u32::from_str_radix(hex, 16).unwrap()).unwrap();
                            bytes.extend(c.to_string().bytes());
                            self.at += 4;
                        }
                        b'"' | b'\\' => bytes.push(e),
                        other => panic!("unknown escape \\{} at byte {}", other as char, self.at),
                    }
                }
                b'\n' => panic!("raw newline in a string at byte {}", self.at),
                c => bytes.push(c),
            }
        }
    }

    /// Values separated by commas up to `close`.
    fn list(&mut self, close: u8) -> Vec<Variant> {
        let mut items = Vec::new();
        if self.eat(close) {
            return items;
        }
        loop {
            items.push(self.value());
            if self.eat(close) {
                return items;
            }
            self.expect(b',');
        }
    }

    fn value(&mut self) -> Variant {
        self.space();
        match self.peek() {
            Some(b'"') => Variant::Str(self.string()),
            Some(b'&') => {
                self.at += 1;
                Variant::StringName(self.string())
            }
            Some(b'[') => {
                self.at += 1;
                Variant::Array(self.list(b']'))
            }
            Some(b'{') => {
                self.at += 1;
                let mut entries = Vec::new();
                if !self.eat(b'}') {
                    loop {
                        let key = self.value();
                        self.expect(b':');
                        entries.push((key, self.value()));
                        if self.eat(b'}') {
                            break;
                        }
                        self.expect(b',');
                    }
                }
                Variant::Dict(entries)
            }
            Some(c) if c == b'-' || c.is_ascii_digit() => {
                let start = self.at;
                while self.peek().is_some_and(|c| c.is_ascii_digit() || b"-+.eE".contains(&c)) {
                    self.at += 1;
                }
                let text = std::str::from_utf8(&self.text[start..self.at]).unwrap();
                Variant::Number(text.parse().unwrap_or_else(|_| panic!("bad number {text} at byte {start}")))
            }
            _ => {
                let name = self.identifier();
                match name.as_str() {
                    "true" => Variant::Bool(true),
                    "false" => Variant::Bool(false),
                    _ => {
                        self.expect(b'(');
                        Variant::Call(name, self.list(b')'))
                    }
                }
            }
        }
    }
}
