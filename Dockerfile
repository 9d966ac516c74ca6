# Lago: one image for every service (web, worker, bot); the compose file picks the command.
# An exact version tag pinned to the digest of its multi-architecture index, so a re-pushed tag
# cannot change what we build. To move to a newer base, take the new tag's index digest from
#   docker buildx imagetools inspect python:3.11.<N>-slim-bookworm
FROM python:3.11.14-slim-bookworm@sha256:65a93d69fa75478d554f4ad27c85c1e69fa184956261b4301ebaf6dbb0a3543d

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1

# Numeric ids: Kubernetes' runAsNonRoot and the host's file ownership see the same user.
RUN groupadd --gid 1000 lago \
    && useradd --create-home --uid 1000 --gid 1000 lago
WORKDIR /app

# requirements.lock: every package, transitive ones included, pinned with hashes (pip-compile
# --generate-hashes from requirements.txt); pip refuses anything that does not match.
COPY requirements.lock .
RUN pip install --no-deps --require-hashes -r requirements.lock

COPY --chown=1000:1000 . .
# collectstatic needs settings but no database or secret. var/ holds the SQLite file
# when DATABASE_URL is unset: writable by the app user.
# The message catalogues are compiled here (python -m lib.catalogues: pure Python, no gettext).
RUN DEBUG=true python manage.py collectstatic --no-input --verbosity 0 \
    && python -m lib.catalogues \
    && mkdir -p var && chown 1000:1000 var

USER 1000:1000
# matplotlib (the weekly report's chart) builds its font cache on first import: once here, into
# the app user's home, instead of 1-2 s and a warning at every container start.
RUN python -c "import matplotlib.font_manager"
EXPOSE 8000
CMD ["gunicorn", "lago.wsgi", "--bind", "0.0.0.0:8000", "--workers", "3", "--access-logfile", "-"]
