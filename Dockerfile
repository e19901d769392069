# The Shut the Box Challenge API: `shutbox serve` (granian) on port 8000.
#
# The project is installed editable from /app: service/store/db.py finds the SQL
# migrations relative to the source tree (/app/service -> /app/sql), so the repo
# layout is kept as it is. Settings come from the environment (service/settings.py);
# DATABASE_URL and SHUTBOX_SECRET must be given (see docker-compose.yml).
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    PIP_ROOT_USER_ACTION=ignore

WORKDIR /app

# The runtime dependencies first (not the dev extra), in their own layer: it is
# rebuilt only when pyproject.toml changes, not on every change to the code.
COPY pyproject.toml README.md ./
RUN python -c "import tomllib; f = open('pyproject.toml', 'rb'); \
print('\n'.join(tomllib.load(f)['project']['dependencies']))" > /tmp/requirements.txt \
    && pip install -r /tmp/requirements.txt \
    && rm /tmp/requirements.txt

COPY service/ ./service/
COPY sql/ ./sql/
RUN pip install --no-deps -e . \
    && shutbox --help > /dev/null \
    && python -c "import service.app; from service.store.db import migrations; assert migrations()"

# An unprivileged user; the code stays owned by root (read-only to the service).
RUN useradd --create-home --uid 10001 --user-group shutbox
USER shutbox

ENV SHUTBOX_HOST=0.0.0.0 \
    SHUTBOX_PORT=8000

EXPOSE 8000

# Liveness only (/readyz also needs the database): no curl in slim, so Python's urllib.
HEALTHCHECK --interval=30s --timeout=5s --start-period=30s --retries=3 \
    CMD ["python", "-c", "import urllib.request; urllib.request.urlopen('http://127.0.0.1:8000/healthz', timeout=4)"]

# Workers from SHUTBOX_WORKERS (default 1).
CMD ["shutbox", "serve", "--host", "0.0.0.0", "--port", "8000"]
