"""The admission rules that read tokens, not the tree: one statement, and bind placeholders.

sqlglot's parser throws away what these rules must see (a `;` between two statements it
would parse as one, the exact spelling of a placeholder), so they read the dialect's tokens;
every other rule reads the tree (admission.py). Comments are dropped here too, before the
parse, because some placements trip sqlglot's parser.
"""

from __future__ import annotations

import re

from sqlglot.tokens import Token, TokenType

from ..backend.base import QueryDialect
from .refusals import rejected as _rejected

__all__ = ["check_placeholders", "check_semicolons", "tokenize", "without_comments"]


_PLACEHOLDER_TOKENS = {
    TokenType.PLACEHOLDER,
    TokenType.PARAMETER,
    TokenType.SESSION_PARAMETER,
    TokenType.COLON,
    TokenType.HASH,
}
_NAME_TOKENS = {TokenType.VAR, TokenType.IDENTIFIER}


def tokenize(dialect: QueryDialect, sql: str) -> list[Token]:
    try:
        return dialect.sqlglot_dialect.tokenize(sql)
    except RecursionError:
        raise _rejected("complexity") from None
    except Exception:  # sqlglot raises TokenError, and the odd ValueError on odd input
        raise _rejected("syntax", dialect=dialect) from None


def without_comments(dialect: QueryDialect, sql: str, tokens: list[Token]) -> tuple[str, list[Token]]:
    """The query re-spelt from its tokens alone, when it has comments.

    Comments carry no meaning, but sqlglot's parser trips on some placements
    (`ORDER /* c */ BY`). Tokens are what admission checks either way; the database
    runs the original text.
    """
    if not any(token.comments for token in tokens):
        return sql, tokens
    clean = " ".join(sql[token.start : token.end + 1] for token in tokens)
    return clean, tokenize(dialect, clean)


def check_semicolons(dialect: QueryDialect, sql: str, tokens: list[Token]) -> None:
    # Blank out genuine single-quoted literals; any `;` left (in code, comments or quoted
    # identifiers) is refused. Requiring the literal's exact shape keeps a token
    # sqlglot merged differently (a COMMAND tail, a $$ string) from hiding a separator.
    text = list(sql)
    for token in tokens:
        if token.token_type is TokenType.STRING:
            literal = sql[token.start : token.end + 1]
            if dialect.string_literal.fullmatch(literal):
                text[token.start : token.end + 1] = " " * len(literal)
    if ";" in "".join(text):
        raise _rejected("one-statement")


_BIND_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def check_placeholders(dialect: QueryDialect, sql: str, tokens: list[Token], binds: bool) -> set[str]:
    """Refuse placeholders; with `binds`, admit `:name` ones and return their names."""
    named: set[str] = set()
    previous: Token | None = None
    for i, token in enumerate(tokens):
        first = sql[token.start] if token.start < len(sql) else ""
        if token.token_type is TokenType.DCOLON:
            raise _rejected("syntax", dialect=dialect)  # `::` casts belong to neither SQLite nor Oracle
        if previous is not None and previous.token_type is TokenType.COLON and _named_bind(sql, previous, token):
            pass  # the name of a `:name` bind admitted below
        elif token.token_type in _PLACEHOLDER_TOKENS or (
            first == "$" and token.token_type not in (TokenType.STRING, TokenType.IDENTIFIER)
        ):
            glued = previous is not None and previous.end + 1 == token.start
            after_name = glued and previous is not None and previous.token_type in _NAME_TOKENS
            if token.token_type is TokenType.PARAMETER and after_name:
                raise _rejected("schema")  # name@link: an Oracle-style database link
            following = tokens[i + 1] if i + 1 < len(tokens) else None
            if not binds:
                raise _rejected("placeholder")
            if token.token_type is not TokenType.COLON or following is None or not _named_bind(sql, token, following):
                raise _rejected("named-binds")
            name = sql[following.start : following.end + 1]
            if dialect.fold(name) in dialect.reserved_bind_names:
                raise _rejected(
                    "bind-name", reason=f":{name} is a word {dialect.name} reserves, which it refuses as a bind name"
                )
            named.add(name)
        previous = token
    return named


def _named_bind(sql: str, colon: Token, name: Token) -> bool:
    """`:` glued to a bare word (a keyword too, as in `:date`): one named bind parameter."""
    return colon.end + 1 == name.start and _BIND_NAME.fullmatch(sql[name.start : name.end + 1]) is not None
