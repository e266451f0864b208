//! One small, real-looking file per language of the registry: its definitions (name, kind,
//! lines, name line), the block enclosing a line, and its chunks.

use super::*;

/// `kind name start-end@line [container]` per definition.
fn outline(text: &str, lang: Lang) -> Vec<String> {
    definitions(text, lang)
        .into_iter()
        .map(|d| {
            let mut s = format!(
                "{} {} {}-{}@{}",
                d.kind.as_str(),
                d.name,
                d.start_line,
                d.end_line,
                d.line
            );
            if let Some(c) = d.container {
                s.push_str(&format!(" in {c}"));
            }
            s
        })
        .collect()
}

/// Every chunk covers the non-blank lines once, in order, within the size cap.
fn check_chunks(path: &str, text: &str) -> Vec<Chunk> {
    let chunks = chunk_file(path, text);
    let lines: Vec<&str> = text.lines().collect();
    let mut next = 1u32;
    for c in &chunks {
        assert!(c.start_line >= next, "{path}: overlap at {c:?}");
        for l in next..c.start_line {
            assert!(
                lines[l as usize - 1].trim().is_empty(),
                "{path}: line {l} not covered"
            );
        }
        assert!(c.start_line <= c.end_line);
        assert!((c.end_line + 1 - c.start_line) as usize <= CHUNK_MAX_LINES);
        next = c.end_line + 1;
    }
    for l in next as usize..=lines.len() {
        assert!(
            lines[l - 1].trim().is_empty(),
            "{path}: tail line {l} not covered"
        );
    }
    chunks
}

struct Case {
    path: &'static str,
    text: &'static str,
    defs: &'static [&'static str],
    /// A line and the (start, end, kind) of the block enclosing it.
    enclosing: (usize, usize, usize, DefKind),
}

const CASES: &[Case] = &[
    Case {
        path: "scripts/deploy.sh",
        text: "\
#!/usr/bin/env bash
set -euo pipefail

# Builds the release.
build() {
  cargo build --release
}

function deploy {
  build
  scp target/release/app host:/srv
}

deploy \"$@\"
",
        defs: &["function build 4-7@5", "function deploy 9-12@9"],
        enclosing: (10, 9, 12, DefKind::Function),
    },
    Case {
        path: "src/list.c",
        text: "\
#include <stdlib.h>

/* A node. */
struct node {
    int value;
    struct node *next;
};

typedef struct node *list_t;

static int list_len(const struct node *n) {
    int len = 0;
    while (n) { len++; n = n->next; }
    return len;
}

int *make_buf(size_t n) {
    return malloc(n * sizeof(int));
}
",
        defs: &[
            "struct node 3-7@4",
            "type list_t 9-9@9",
            "function list_len 11-15@11",
            "function make_buf 17-19@17",
        ],
        enclosing: (13, 11, 15, DefKind::Function),
    },
    Case {
        path: "src/shape.cpp",
        text: "\
#include <cmath>

namespace geo {

class Circle {
public:
    explicit Circle(double r) : r_(r) {}
    double area() const { return M_PI * r_ * r_; }
private:
    double r_;
};

template <typename T>
T twice(T x) {
    return x + x;
}

}  // namespace geo

double geo_area(const geo::Circle& c) { return c.area(); }

double Circle::perimeter() const {
    return 2 * M_PI * r_;
}
",
        defs: &[
            "module geo 3-18@3",
            "class Circle 5-11@5 in geo",
            "method Circle 7-7@7 in Circle",
            "method area 8-8@8 in Circle",
            "function twice 13-16@14 in geo",
            "function geo_area 20-20@20",
            "method perimeter 22-24@22",
        ],
        enclosing: (15, 13, 16, DefKind::Function),
    },
    Case {
        path: "src/Services/OrderService.cs",
        text: "\
using System;

namespace Shop.Services
{
    /// <summary>Places orders.</summary>
    public class OrderService : IOrderService
    {
        private readonly IRepo _repo;

        public OrderService(IRepo repo) { _repo = repo; }

        public Order Place(Cart cart)
        {
            return _repo.Save(new Order(cart));
        }
    }

    public interface IOrderService { Order Place(Cart cart); }

    public enum Status { Open, Closed }

    public record Order(Cart Cart);
}
",
        defs: &[
            "module Shop.Services 3-23@3",
            "class OrderService 5-16@6 in Shop.Services",
            "method OrderService 10-10@10 in OrderService",
            "method Place 12-15@12 in OrderService",
            "interface IOrderService 18-18@18 in Shop.Services",
            "method Place 18-18@18 in IOrderService",
            "enum Status 20-20@20 in Shop.Services",
            "class Order 22-22@22 in Shop.Services",
        ],
        enclosing: (14, 12, 15, DefKind::Method),
    },
    Case {
        path: "lib/shop/cart.ex",
        text: "\
defmodule Shop.Cart do
  @moduledoc \"A cart.\"

  defstruct items: []

  def total(%__MODULE__{items: items}) do
    Enum.reduce(items, 0, &(&1.price + &2))
  end

  def add(cart, item) when is_map(item) do
    %{cart | items: [item | cart.items]}
  end

  defp empty?([]), do: true
  defp empty?(_), do: false
end
",
        defs: &[
            "module Shop.Cart 1-16@1",
            "function total 6-8@6 in Shop.Cart",
            "function add 10-12@10 in Shop.Cart",
            "function empty? 14-15@14 in Shop.Cart",
        ],
        enclosing: (7, 6, 8, DefKind::Function),
    },
    Case {
        path: "src/Data/Stack.hs",
        text: "\
module Data.Stack where

-- | A stack.
data Stack a = Empty | Push a (Stack a)

class Container f where
  size :: f a -> Int

push :: a -> Stack a -> Stack a
push x s = Push x s

depth :: Stack a -> Int
depth Empty = 0
depth (Push _ s) = 1 + depth s

main = print (depth (push 1 Empty))
",
        defs: &[
            "type Stack 3-4@4",
            "interface Container 6-7@6",
            "function push 9-10@10",
            "function depth 12-14@13",
            "function main 16-16@16",
        ],
        enclosing: (14, 12, 14, DefKind::Function),
    },
    Case {
        path: "src/main/java/shop/Cart.java",
        text: "\
package shop;

import java.util.List;

/** A cart. */
public final class Cart {
    private final List<Item> items;

    public Cart(List<Item> items) {
        this.items = items;
    }

    @Override
    public int total() {
        return items.stream().mapToInt(Item::price).sum();
    }
}

interface Priced { int price(); }

enum Currency { EUR, USD }

record Item(String name, int price) {}
",
        defs: &[
            "class Cart 5-17@6",
            "method Cart 9-11@9 in Cart",
            "method total 13-16@14 in Cart",
            "interface Priced 19-19@19",
            "method price 19-19@19 in Priced",
            "enum Currency 21-21@21",
            "class Item 23-23@23",
        ],
        enclosing: (15, 13, 16, DefKind::Method),
    },
    Case {
        path: "src/main/kotlin/Cart.kt",
        text: "\
package shop

interface Priced {
    fun price(): Int
}

data class Item(val name: String, val price: Int)

class Cart(private val items: List<Item>) {
    fun total(): Int {
        return items.sumOf { it.price }
    }
}

object Registry {
    fun lookup(name: String): Item? = null
}

enum class Currency { EUR, USD }

fun main() {
    println(Cart(listOf()).total())
}
",
        defs: &[
            "interface Priced 3-5@3",
            "method price 4-4@4 in Priced",
            "class Item 7-7@7",
            "class Cart 9-13@9",
            "method total 10-12@10 in Cart",
            "class Registry 15-17@15",
            "method lookup 16-16@16 in Registry",
            "enum Currency 19-19@19",
            "function main 21-23@21",
        ],
        enclosing: (11, 10, 12, DefKind::Method),
    },
    Case {
        path: "lua/cart.lua",
        text: "\
local M = {}

-- Sums the prices.
function M.total(items)
  local sum = 0
  for _, it in ipairs(items) do sum = sum + it.price end
  return sum
end

function M:add(item)
  table.insert(self.items, item)
end

local function helper(x)
  return x * 2
end

return M
",
        defs: &[
            "function total 3-8@4",
            "method add 10-12@10",
            "function helper 14-16@14",
        ],
        enclosing: (6, 3, 8, DefKind::Function),
    },
    Case {
        path: "src/Cart.php",
        text: "\
<?php

namespace Shop;

interface Priced
{
    public function price(): int;
}

trait Discounts
{
    public function discount(): int { return 0; }
}

final class Cart implements Priced
{
    use Discounts;

    public function price(): int
    {
        return array_sum($this->items);
    }
}

function make_cart(): Cart
{
    return new Cart();
}
",
        defs: &[
            "module Shop 3-3@3",
            "interface Priced 5-8@5",
            "method price 7-7@7 in Priced",
            "trait Discounts 10-13@10",
            "method discount 12-12@12 in Discounts",
            "class Cart 15-23@15",
            "method price 19-22@19 in Cart",
            "function make_cart 25-28@25",
        ],
        enclosing: (21, 19, 22, DefKind::Method),
    },
    Case {
        path: "lib/shop/cart.rb",
        text: "\
module Shop
  # A cart.
  class Cart
    def initialize(items)
      @items = items
    end

    def self.empty
      new([])
    end

    def total
      @items.sum(&:price)
    end
  end
end

def helper; end
",
        defs: &[
            "module Shop 1-16@1",
            "class Cart 2-15@3 in Shop",
            "method initialize 4-6@4 in Cart",
            "method empty 8-10@8 in Cart",
            "method total 12-14@12 in Cart",
            "function helper 18-18@18",
        ],
        enclosing: (13, 12, 14, DefKind::Method),
    },
    Case {
        path: "src/main/scala/shop/Cart.scala",
        text: "\
package shop

trait Priced {
  def price: Int
}

case class Item(name: String, price: Int) extends Priced

class Cart(items: List[Item]) {
  def total: Int = items.map(_.price).sum
}

object Cart {
  type Items = List[Item]
  def empty: Cart = new Cart(Nil)
}

enum Currency:
  case EUR, USD
",
        defs: &[
            "trait Priced 3-5@3",
            "method price 4-4@4 in Priced",
            "class Item 7-7@7",
            "class Cart 9-11@9",
            "method total 10-10@10 in Cart",
            "module Cart 13-16@13",
            "type Items 14-14@14 in Cart",
            "function empty 15-15@15 in Cart",
            "enum Currency 18-19@18",
        ],
        enclosing: (10, 10, 10, DefKind::Method),
    },
    Case {
        path: "Sources/Shop/Cart.swift",
        text: "\
import Foundation

protocol Priced {
    func price() -> Int
}

/// A cart.
struct Cart {
    var items: [Item]

    init(items: [Item]) {
        self.items = items
    }

    func total() -> Int {
        items.reduce(0) { $0 + $1.price }
    }
}

extension Cart: Priced {
    func price() -> Int { total() }
}

enum Currency { case eur, usd }

class Store {}

typealias Items = [Item]

func makeCart() -> Cart { Cart(items: []) }
",
        defs: &[
            "interface Priced 3-5@3",
            "method price 4-4@4 in Priced",
            "struct Cart 7-18@8",
            "method init 11-13@11 in Cart",
            "method total 15-17@15 in Cart",
            "impl Cart 20-22@20",
            "method price 21-21@21 in Cart",
            "enum Currency 24-24@24",
            "class Store 26-26@26",
            "type Items 28-28@28",
            "function makeCart 30-30@30",
        ],
        enclosing: (16, 15, 17, DefKind::Method),
    },
    Case {
        path: "contracts/Vault.sol",
        text: "\
// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

uint256 constant MAX_SUPPLY = 1000;

error Unauthorized(address who);

/// A token interface.
interface IToken {
    function transfer(address to, uint256 amount) external returns (bool);
}

library Math {
    function min(uint256 a, uint256 b) internal pure returns (uint256) {
        return a < b ? a : b;
    }
}

contract Vault is IToken {
    struct Deposit { uint256 amount; }
    enum State { Open, Closed }
    event Deposited(address indexed from, uint256 amount);
    type Shares is uint256;
    uint256 public constant FEE = 3;
    uint256 public total;

    constructor() { total = 0; }

    modifier onlyOpen() {
        _;
    }

    function transfer(address to, uint256 amount) external returns (bool) {
        return true;
    }

    receive() external payable {}
}

function helper() pure returns (uint256) { return 1; }
",
        defs: &[
            "const MAX_SUPPLY 4-4@4",
            "type Unauthorized 6-6@6",
            "interface IToken 8-11@9",
            "method transfer 10-10@10 in IToken",
            "module Math 13-17@13",
            "function min 14-16@14 in Math",
            "class Vault 19-38@19",
            "struct Deposit 20-20@20 in Vault",
            "enum State 21-21@21 in Vault",
            "type Deposited 22-22@22 in Vault",
            "type Shares 23-23@23 in Vault",
            "const FEE 24-24@24 in Vault",
            "method onlyOpen 29-31@29 in Vault",
            "method transfer 33-35@33 in Vault",
            "function helper 40-40@40",
        ],
        enclosing: (34, 33, 35, DefKind::Method),
    },
    Case {
        path: "src/point.zig",
        text: "\
const std = @import(\"std\");

/// A point.
pub const Point = struct {
    x: i32,
    y: i32,

    pub fn add(self: Point, other: Point) Point {
        return .{ .x = self.x + other.x, .y = self.y + other.y };
    }
};

const Color = enum { red, green };

pub fn main() void {
    std.debug.print(\"hi\\n\", .{});
}

test \"add\" {
    try std.testing.expect(true);
}
",
        defs: &[
            "struct Point 3-11@4",
            "method add 8-10@8 in Point",
            "enum Color 13-13@13",
            "function main 15-17@15",
        ],
        enclosing: (9, 8, 10, DefKind::Method),
    },
];

#[test]
fn every_language_finds_its_definitions_blocks_and_chunks() {
    let mut failures = Vec::new();
    for case in CASES {
        let lang = Lang::from_path(case.path).expect(case.path);
        let found = outline(case.text, lang);
        if found != case.defs {
            failures.push(format!("{}: {found:#?}", case.path));
            continue;
        }
        let (line, s, e, kind) = case.enclosing;
        assert_eq!(
            enclosing_block(case.text, lang, line, line),
            Some((s, e, kind)),
            "{}",
            case.path
        );
        let chunks = check_chunks(case.path, case.text);
        assert!(!chunks.is_empty(), "{}", case.path);
        // Every definition's name is a symbol of exactly the chunk holding its name line.
        for d in definitions(case.text, lang) {
            if d.kind == DefKind::Impl {
                continue;
            }
            let line = u32::try_from(d.line).unwrap();
            let holder = chunks
                .iter()
                .find(|c| c.start_line <= line && line <= c.end_line)
                .expect("name line in a chunk");
            assert!(holder.symbols.contains(&d.name), "{}: {d:?}", case.path);
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn every_language_has_a_grammar_and_a_case() {
    for lang in Lang::ALL {
        let mut parser = tree_sitter::Parser::new();
        parser
            .set_language(&grammar(lang))
            .expect("compatible grammar");
        assert!(parse("x", lang).is_some(), "{lang:?}");
        let covered = CASES.iter().any(|c| Lang::from_path(c.path) == Some(lang))
            || matches!(
                lang,
                Lang::TypeScript
                    | Lang::Tsx
                    | Lang::JavaScript
                    | Lang::Python
                    | Lang::Rust
                    | Lang::Go
            );
        assert!(covered, "no test case for {lang:?}");
    }
}

#[test]
fn file_names_and_extensions_map_to_languages() {
    let cases = [
        ("a/b.sh", Lang::Bash),
        ("Rakefile", Lang::Ruby),
        ("x/Gemfile", Lang::Ruby),
        ("a.H", Lang::C),
        ("a.hpp", Lang::Cpp),
        ("A.cs", Lang::CSharp),
        ("mix.exs", Lang::Elixir),
        ("Main.hs", Lang::Haskell),
        ("A.java", Lang::Java),
        ("build.gradle.kts", Lang::Kotlin),
        ("init.lua", Lang::Lua),
        ("index.php", Lang::Php),
        ("a.scala", Lang::Scala),
        ("A.swift", Lang::Swift),
        ("contracts/Vault.SOL", Lang::Solidity),
        ("build.zig", Lang::Zig),
    ];
    for (path, lang) in cases {
        assert_eq!(Lang::from_path(path), Some(lang), "{path}");
    }
    assert_eq!(Lang::from_name("C++"), Some(Lang::Cpp));
    assert_eq!(Lang::from_name("c#"), Some(Lang::CSharp));
    assert_eq!(Lang::from_name("shell"), Some(Lang::Bash));
    assert_eq!(Lang::from_name("sol"), Some(Lang::Solidity));
    assert_eq!(Lang::from_path("notes.txt"), None);
    assert_eq!(Lang::from_path("Dockerfile"), None);
    // Every extension belongs to one language only.
    let mut seen = std::collections::HashMap::new();
    for lang in Lang::ALL {
        for ext in lang.info().extensions {
            assert_eq!(seen.insert(*ext, lang), None, "{ext}");
        }
        assert!(!lang.info().line_comments.is_empty() || lang.info().block_comment.is_some());
    }
}

#[test]
fn test_files_follow_each_language_convention() {
    for path in [
        "pkg/parse_test.go",
        "tests/test_api.py",
        "app/test_models.py",
        "src/a.spec.ts",
        "src/__tests__/a.tsx",
        "src/test/java/shop/CartTest.java",
        "ShopTests/CartTests.swift",
        "spec/cart_spec.rb",
        "test/cart_test.exs",
        "CartSpec.scala",
        "tests/CartTest.php",
        "lua/cart_spec.lua",
        "src/Vault.t.sol",
        r"src\test\java\shop\CartTest.java",
        r"C:\proj\tests\api.py",
        r"\\?\C:\proj\src\__tests__\a.tsx",
        r"app\test_models.py",
    ] {
        assert!(is_test_path(path), "{path}");
    }
    for path in [
        r"src\Latest.java",
        r"C:\proj\src\cart.ts",
        "src/Latest.java",
        "src/contest.py",
        "src/attest.go",
        "src/cart.ts",
        "README.md",
        "lib/testing_utils.rb",
    ] {
        assert!(!is_test_path(path), "{path}");
    }
}

#[test]
fn unknown_languages_are_cut_into_line_windows() {
    let text: String = (1..=130).map(|i| format!("line {i}\n")).collect();
    let chunks = check_chunks("notes.txt", &text);
    let ranges: Vec<(u32, u32)> = chunks.iter().map(|c| (c.start_line, c.end_line)).collect();
    assert_eq!(ranges, vec![(1, 40), (41, 80), (81, 120), (121, 130)]);
    assert!(chunks.iter().all(|c| c.symbols.is_empty()));
    assert!(chunk_file("a.rs", "").is_empty());
    assert!(chunk_file("a.rs", "\n\n  \n").is_empty());
}

#[test]
fn a_long_class_is_cut_at_its_methods() {
    let mut text = String::from("import os\n\nclass Big:\n    \"\"\"Doc.\"\"\"\n\n");
    for i in 0..12 {
        text.push_str(&format!("    def m{i}(self):\n"));
        for j in 0..8 {
            text.push_str(&format!("        x{j} = {i}\n"));
        }
        text.push('\n');
    }
    text.push_str("def tail():\n    return 1\n");
    let chunks = check_chunks("big.py", &text);
    assert!(chunks.len() > 2, "{chunks:?}");
    // No method is split across chunks.
    for d in definitions(&text, Lang::Python) {
        if d.kind == DefKind::Method {
            let c = chunks
                .iter()
                .find(|c| c.start_line as usize <= d.line && d.line <= c.end_line as usize)
                .unwrap();
            assert!(c.end_line as usize >= d.end_line, "{d:?} cut in {c:?}");
        }
    }
    assert!(chunks.last().unwrap().symbols.contains(&"tail".to_owned()));
}

mod random {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(24))]

        #[test]
        fn random_bytes_never_panic_in_any_language(bytes in proptest::collection::vec(any::<u8>(), 0..1024)) {
            let text = String::from_utf8_lossy(&bytes);
            for lang in Lang::ALL {
                for d in definitions(&text, lang) {
                    prop_assert!(d.start_line >= 1 && d.start_line <= d.line && d.line <= d.end_line);
                }
                let path = format!("x.{}", lang.info().extensions[0]);
                let _ = check_chunks(&path, &text);
            }
        }

        #[test]
        fn code_like_text_never_panics_in_any_language(parts in proptest::collection::vec(prop_oneof![
            Just("def "), Just("class "), Just("fn "), Just("function "), Just("end\n"),
            Just("{"), Just("}"), Just("("), Just(")"), Just("do\n"), Just("module "),
            Just("x"), Just("::"), Just("\n"), Just("  "), Just("= "), Just("struct "),
            Just("namespace "), Just("template <T> "), Just("pub "), Just("\""), Just("/*"),
        ], 0..200)) {
            let text: String = parts.concat();
            for lang in Lang::ALL {
                let path = format!("x.{}", lang.info().extensions[0]);
                let _ = check_chunks(&path, &text);
            }
        }
    }
}
