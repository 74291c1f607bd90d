"""A combat in, answers out: validate, solve, count, enumerate and sample damage assignments."""
