{% test cdc_change_records_valid(model) %}
{#-
    Every record of a staging model has the shape of the change-record contract
    (docs/change_event_contract.md): a raw_record_id; an outcome that is change, control or
    quarantined; an outcome_reason that is null or a reason_code of seed cdc_outcome_reasons; an
    operation that is null or insert, update, delete, snapshot or truncate. Checks the records
    of the model's latest run, as cdc_raw_records_accounted_for checks its files (var
    cdc_audit_all_files: true checks every record). Returns one row per record that breaks a
    rule, naming the first rule it breaks. One statement where dbt's not_null, accepted_values
    and relationships tests took five per staging model.
-#}
{%- set outcomes = ['change', 'control', 'quarantined'] -%}
{%- set operations = ['insert', 'update', 'delete', 'snapshot', 'truncate'] -%}

with

reason_codes as (
    select distinct reason_code
    from {{ ref('cdc_outcome_reasons') }}
),

audited_records as (
    select
        raw_record_id,
        row_index,
        landing_file,
        record_outcome,
        outcome_reason,
        operation
    from {{ model }}
    where {{ _cdc_audited_records(model) }}
),

checked_records as (
    select
        audited_records.*,
        case
            when audited_records.raw_record_id is null then 'raw_record_id is null'
            when audited_records.record_outcome is null then 'record_outcome is null'
            when audited_records.record_outcome not in ({{ cdc_sql_string_list(outcomes) }})
                then 'record_outcome is not one of {{ outcomes | join(", ") }}'
            when audited_records.operation not in ({{ cdc_sql_string_list(operations) }})
                then 'operation is not one of {{ operations | join(", ") }}'
            when audited_records.outcome_reason is not null and reason_codes.reason_code is null
                then 'outcome_reason is not a reason_code of seed cdc_outcome_reasons'
        end as broken_rule
    from audited_records
    left join reason_codes
        on audited_records.outcome_reason = reason_codes.reason_code
)

select * from checked_records
where broken_rule is not null
{% endtest %}
