"""Local fake servers for the outside peers (real HTTP on 127.0.0.1)."""
