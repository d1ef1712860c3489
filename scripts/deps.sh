#!/usr/bin/env bash
# make deps: install Redis, WordNet, tesseract (OCR), chromium (web-console tests), the OIDC provider (sign-in tests), the S3 server (s3 source tests), Weaviate and the model files; start nothing.
set -euo pipefail
# shellcheck source=scripts/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

install_redis
install_wordnet
install_ocr
install_chromium
install_oidc_provider
install_s3_server
install_weaviate
install_model "${RAGD_DATA_DIR:-$ROOT/data}"
log "dependencies installed"
