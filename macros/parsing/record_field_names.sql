{#-
    Kept apart from change_records.sql: a macro that returns a value, called from another macro
    of the same file, escapes its caller in sqlfluff's dbt templater (cdc_record_columns would
    then render as this list when the models are linted).
-#}

{% macro cdc_record_field_names() %}
    {#- The canonical fields every flavour provides an expression for. -#}
    {{ return([
    'classification',
    'source_database',
    'source_schema',
    'source_table',
    'operation',
    'key_image',
    'before_image',
    'after_image',
    'field_schemas',
    'change_sequence',
    'commit_timestamp',
    'transaction_id',
    ]) }}
{% endmacro %}
