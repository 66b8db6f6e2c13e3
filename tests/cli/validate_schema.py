#!/usr/bin/env python3
"""Validates fdbench JSON documents against a JSON Schema with python3-jsonschema.

Usage: validate_schema.py SCHEMA DOCUMENT...
Exit 0 when every document is valid, 1 when one is not (each reason printed on a line),
2 when the schema itself is not a valid JSON Schema.
"""
import json
import sys

import jsonschema


def main(argv):
    with open(argv[1], encoding="utf-8") as f:
        schema = json.load(f)
    validator_class = jsonschema.validators.validator_for(schema)
    try:
        validator_class.check_schema(schema)
    except jsonschema.exceptions.SchemaError as e:
        print(f"{argv[1]}: not a valid JSON Schema: {e.message}")
        return 2
    validator = validator_class(schema)
    invalid = 0
    for path in argv[2:]:
        with open(path, encoding="utf-8") as f:
            document = json.load(f)
        errors = sorted(validator.iter_errors(document), key=lambda e: list(e.absolute_path))
        for error in errors[:10]:
            where = "/".join(str(p) for p in error.absolute_path) or "(document)"
            print(f"{path}: {where}: {error.message}")
        invalid += bool(errors)
    return 1 if invalid else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
