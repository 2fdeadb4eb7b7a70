"""The raising condition of a catalog entry, as read from the source: is it an expression, and
can it ever hold? An entry that explains a check which can never fail explains nothing.

A condition is a Python expression, optionally followed by ``where NAME = EXPR, ...`` for the
names the source assigned just before (``triton.cdiv(K, BK) != 1 where BK =
triton.next_power_of_2(K)``). Prose (a native library's check in words) is not decided.
The decision is deliberately small: constant folding, a few integer identities and
comparisons of an expression with itself; anything else is "unknown", never "never".
"""

from __future__ import annotations

import ast
import operator

_COMPARE = {ast.Eq: operator.eq, ast.NotEq: operator.ne, ast.Lt: operator.lt, ast.LtE: operator.le,
            ast.Gt: operator.gt, ast.GtE: operator.ge}
_SELF_COMPARE = {ast.Eq: True, ast.LtE: True, ast.GtE: True, ast.NotEq: False, ast.Lt: False, ast.Gt: False,
                 ast.Is: True, ast.IsNot: False}
_BINARY = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.FloorDiv: operator.floordiv,
           ast.Mod: operator.mod}
CDIV = {"cdiv", "triton.cdiv", "tl.cdiv"}
NEXT_POWER_OF_2 = {"next_power_of_2", "triton.next_power_of_2"}


def parse(condition: str) -> ast.expr | None:
    """The condition as an expression with its ``where`` bindings substituted; None for prose."""
    text, _, where = condition.partition(" where ")
    try:
        expr = ast.parse(text.strip(), mode="eval").body
        bindings = {}
        for binding in filter(None, (b.strip() for b in where.split(","))) if where else ():
            name, _, value = binding.partition("=")
            bindings[name.strip()] = ast.parse(value.strip(), mode="eval").body
    except SyntaxError:
        return None

    class Substitute(ast.NodeTransformer):
        def visit_Name(self, node: ast.Name) -> ast.AST:
            return bindings.get(node.id, node)
    return Substitute().visit(expr)


def is_expression(condition: str) -> bool:
    return parse(condition) is not None


def never_holds(condition: str) -> bool:
    """Whether the raising condition is false for every (positive integer) value of its names."""
    expr = parse(condition)
    return expr is not None and _truth(_simplify(expr)) is False


def _name(node: ast.AST) -> str:
    try:
        return ast.unparse(node)
    except Exception:  # noqa: BLE001
        return ""


def _simplify(node: ast.AST) -> ast.AST:
    """Fold constants and the integer identities the checks are made of (sizes are positive)."""
    node = ast.copy_location(type(node)(**{f: _simplify_field(getattr(node, f)) for f in node._fields}), node) \
        if isinstance(node, ast.AST) and node._fields else node
    if isinstance(node, ast.Call) and len(node.args) == 2 and _name(node.func) in CDIV:
        a, b = node.args
        if isinstance(b, ast.Call) and _name(b.func) in NEXT_POWER_OF_2 and len(b.args) == 1 \
                and ast.dump(b.args[0]) == ast.dump(a):
            return ast.Constant(1)          # ceil(a / next_power_of_2(a)) == 1 for a >= 1
        if isinstance(b, ast.Constant) and b.value == 1:
            return a
    if isinstance(node, ast.BinOp) and type(node.op) in _BINARY:
        left, right = node.left, node.right
        if isinstance(left, ast.Constant) and isinstance(right, ast.Constant):
            try:
                return ast.Constant(_BINARY[type(node.op)](left.value, right.value))
            except Exception:  # noqa: BLE001 - division by zero, types: leave it
                return node
        if isinstance(right, ast.Constant) and right.value == 1:
            if isinstance(node.op, ast.Mod):
                return ast.Constant(0)
            if isinstance(node.op, (ast.Mult, ast.FloorDiv)):
                return left
        if isinstance(node.op, (ast.Mod, ast.Sub)) and ast.dump(left) == ast.dump(right):
            return ast.Constant(0)          # x % x == 0 and x - x == 0 (x a positive size)
    return node


def _simplify_field(value):
    if isinstance(value, list):
        return [_simplify(v) for v in value]
    return _simplify(value) if isinstance(value, ast.AST) else value


def _truth(node: ast.AST) -> bool | None:
    """True: always holds; False: never holds; None: depends on the values."""
    if isinstance(node, ast.Constant):
        return bool(node.value)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
        inner = _truth(node.operand)
        return None if inner is None else not inner
    if isinstance(node, ast.BoolOp):
        parts = [_truth(v) for v in node.values]
        absorbing = isinstance(node.op, ast.Or)     # one always-true operand makes `or` true
        if absorbing in parts:
            return absorbing
        return (not absorbing) if all(p is (not absorbing) for p in parts) else None
    if isinstance(node, ast.Compare) and len(node.ops) == 1:
        left, right, op = node.left, node.comparators[0], type(node.ops[0])
        if isinstance(left, ast.Constant) and isinstance(right, ast.Constant) and op in _COMPARE:
            try:
                return bool(_COMPARE[op](left.value, right.value))
            except TypeError:
                return None
        if ast.dump(left) == ast.dump(right) and op in _SELF_COMPARE:
            return _SELF_COMPARE[op]
    return None
