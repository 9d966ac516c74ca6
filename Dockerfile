# Lago: one image for every service (web, worker, bot); the compose file picks the command.
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1

RUN apt-get update \
    && apt-get install -y --no-install-recommends curl \
    && rm -rf /var/lib/apt/lists/*

RUN useradd --create-home --uid 1000 lago
WORKDIR /app

COPY requirements.txt .
RUN pip install -r requirements.txt

COPY --chown=lago:lago . .
# collectstatic needs settings but no database or secret.
RUN DEBUG=true python manage.py collectstatic --no-input --verbosity 0

USER lago
EXPOSE 8000
CMD ["gunicorn", "tracker.wsgi", "--bind", "0.0.0.0:8000", "--workers", "3", "--access-logfile", "-"]
