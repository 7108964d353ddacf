{% test cdc_quarantine_is_small(model) %}
{#-
    One row per quarantined record: warns as soon as there is one, fails above
    var cdc_quarantine_error_threshold (the quarantine log says why, and what to do).
-#}
{{ config(warn_if='>0', error_if='>' ~ var('cdc_quarantine_error_threshold')) }}
select
    reason_code,
    reason_detail,
    landing_file,
    landing_position
from {{ model }}
{% endtest %}
