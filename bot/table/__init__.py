"""The table commands (/game, /roll, /stats): their declarations and their service code."""
