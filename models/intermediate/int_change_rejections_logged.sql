{#-
    Every staged change that no current-state table can apply, with the reason: the rejected
    rows of int_changes_checked, which checks each staged change once, with the typing the
    current-state tables use.
-#}

with

checked_changes as (
    select * from {{ ref('int_changes_checked') }}
),

final as (
    select checked_changes.* except (row_key, change_sequence, change_content)
    from checked_changes
    where checked_changes.rejection_reason is not null
)

select * from final
