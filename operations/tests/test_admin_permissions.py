"""Least privilege in the admin: staff with view-only permissions see, but no action changes
anything."""

import pytest
from django.contrib.admin import site
from django.contrib.admin.helpers import ACTION_CHECKBOX_NAME
from django.contrib.auth.models import Permission, User
from django.urls import reverse

from notifications.models import Notification, TelegramChat
from tests.factories import make_chat, make_keyword, make_notification
from tracker.models import Keyword

pytestmark = pytest.mark.django_db
LAGO_APPS = {"tracker", "notifications", "scraping", "operations"}


@pytest.fixture
def viewer(client):
    user = User.objects.create_user("viewer", password="x-long-enough-Passw0rd", is_staff=True)
    user.user_permissions.set(
        Permission.objects.filter(
            codename__in=["view_keyword", "view_telegramchat", "view_notification"]
        )
    )
    client.force_login(user)
    return client


def act(client, model, action, *objects):
    url = reverse(f"admin:{model._meta.app_label}_{model._meta.model_name}_changelist")
    return client.post(
        url, {"action": action, ACTION_CHECKBOX_NAME: [o.pk for o in objects]}, follow=True
    )


def test_every_admin_action_declares_a_permission():
    checked = set()
    for model, model_admin in site._registry.items():
        if model._meta.app_label not in LAGO_APPS:
            continue
        for name in model_admin.actions or []:
            func = getattr(model_admin, name, None) if isinstance(name, str) else name
            # A name that resolves to nothing would make Django's admin fail at request time.
            assert callable(func), f"{model.__name__} admin action {name!r} does not resolve"
            assert getattr(func, "allowed_permissions", None), (
                f"{model.__name__} admin action {name} declares no permission"
            )
            checked.add(name if isinstance(name, str) else func.__name__)
    # The actions the view-only tests below post: the loop must have seen them.
    posted = {"pause", "resume", "reset_cursor", "run_now", "approve", "block", "retry_now"}
    assert posted <= checked, posted - checked


def test_view_only_staff_cannot_pause_resume_reset_or_run_keywords(viewer):
    active, paused = make_keyword(), make_keyword(is_active=False, cursor_ad_id="42")
    assert viewer.get(reverse("admin:tracker_keyword_changelist")).status_code == 200
    act(viewer, Keyword, "pause", active)
    act(viewer, Keyword, "resume", paused)
    act(viewer, Keyword, "reset_cursor", paused)
    response = act(viewer, Keyword, "run_now", active)
    assert 'value="run_now"' not in response.content.decode()
    active.refresh_from_db(), paused.refresh_from_db()
    assert active.is_active and not paused.is_active and paused.cursor_ad_id == "42"
    assert not active.runs.exists()


def test_view_only_staff_cannot_approve_or_block_chats_or_retry_notifications(viewer):
    pending, active = make_chat(status=TelegramChat.Status.PENDING), make_chat()
    act(viewer, TelegramChat, "approve", pending)
    act(viewer, TelegramChat, "block", active)
    dead = make_notification(status=Notification.Status.DEAD)
    waiting = make_notification()
    act(viewer, Notification, "retry_now", dead)
    act(viewer, Notification, "cancel", waiting)
    (
        pending.refresh_from_db(),
        active.refresh_from_db(),
        dead.refresh_from_db(),
        waiting.refresh_from_db(),
    )
    assert (
        pending.status == TelegramChat.Status.PENDING
        and active.status == TelegramChat.Status.ACTIVE
    )
    assert dead.status == Notification.Status.DEAD and waiting.status == Notification.Status.PENDING
