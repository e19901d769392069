# The Shut the Box Challenge API: `shutbox serve` (granian) on port 8000.
#
# The project is installed editable from /app: service/store/db.py finds the SQL
# migrations relative to the source tree (/app/service -> /app/sql), so the repo
# layout is kept as it is. Settings come from the environment (service/support/settings.py);
# DATABASE_URL and SHUTBOX_SECRET must be given (see docker-compose.yml).
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    PIP_ROOT_USER_ACTION=ignore

WORKDIR /app

# The build tools first, then the runtime dependencies (not the dev ones), at the
# versions the tests ran (requirements-build.lock and requirements.lock, written by
# scripts/lock, every file's hash checked), in their own layers: rebuilt only when a
# lock changes, not on every change to the code.
COPY requirements-build.lock ./
RUN pip install --require-hashes -r requirements-build.lock
COPY requirements.lock ./
RUN pip install --require-hashes -r requirements.lock

# The project itself, nothing more, built with the locked setuptools (no build isolation:
# nothing is fetched): pip check fails the build when pyproject.toml names a dependency
# the lock lacks (scripts/lock was not run).
COPY pyproject.toml README.md ./
COPY service/ ./service/
COPY sql/ ./sql/
RUN pip install --no-deps --no-build-isolation -e . \
    && pip check \
    && shutbox --help > /dev/null \
    && python -c "import service.app; from service.store.db import migrations; assert migrations()"

# An unprivileged user, named by number so that the runtime (Kubernetes' runAsNonRoot)
# can tell it is not root; the code stays owned by root (read-only to the service).
# docker-compose.yml also makes the whole root filesystem read-only, with a tmpfs at /tmp.
RUN groupadd --gid 10001 shutbox \
    && useradd --uid 10001 --gid 10001 --create-home --shell /usr/sbin/nologin shutbox
USER 10001:10001

ENV SHUTBOX_HOST=0.0.0.0 \
    SHUTBOX_PORT=8000

EXPOSE 8000

# Liveness only (/readyz also needs the database): no curl in slim, so Python's urllib.
HEALTHCHECK --interval=30s --timeout=5s --start-period=30s --retries=3 \
    CMD ["python", "-c", "import urllib.request; urllib.request.urlopen('http://127.0.0.1:8000/healthz', timeout=4)"]

# Workers from SHUTBOX_WORKERS (default 1): one that dies is replaced, the others answering
# meanwhile; SIGTERM stops them within SHUTBOX_STOP_TIMEOUT (default 8 s), start-up included.
CMD ["shutbox", "serve", "--host", "0.0.0.0", "--port", "8000"]
