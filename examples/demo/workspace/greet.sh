#!/usr/bin/env bash
# A tiny script for the README's coding-tools walkthrough.
name="${1:-world}"
echo "Hello, $name!"
