{#-
    Kept apart from change_records.sql, as cdc_record_field_names is: a macro that returns a value,
    called from another macro of the same file, escapes its caller in sqlfluff's dbt templater.
-#}

{% macro cdc_record_column_types() %}
    {#-
        The staging contract's columns: (name, Spark type) pairs, in the order every staging
        model selects them (cdc_record_columns casts each of its expressions to its type here).
        A staging table is created from these, so that no run asks Spark to analyse a staging
        query only to learn its columns (test_declared_column_types_are_the_query_types
        compares them with the query's).
    -#}
    {%- set columns = [
        ('raw_record_id', 'string'), ('row_index', 'int'), ('record_outcome', 'string'),
        ('outcome_reason', 'string'), ('flavour', 'string'), ('source_database', 'string'),
        ('source_schema', 'string'), ('source_table', 'string'), ('operation', 'string'),
        ('key_image', 'map<string, variant>'), ('before_image', 'map<string, variant>'),
        ('after_image', 'map<string, variant>'), ('field_schemas', cdc_field_schemas_type() | trim),
        ('object_valued_columns', 'array<string>'), ('change_sequence', 'array<bigint>'),
        ('commit_timestamp', 'timestamp'), ('transaction_id', 'string'), ('landing_table', 'string'),
        ('landing_file', 'string'), ('landing_position', 'bigint'), ('kafka_topic', 'string'),
        ('kafka_partition', 'int'), ('kafka_offset', 'bigint'), ('kafka_timestamp', 'timestamp'),
        ('landed_at', 'timestamp'), ('loaded_at', 'timestamp'), ('raw_key', 'string'),
        ('raw_value', 'string'), ('source_table_partition', 'string'),
    ] -%}
    {{ return(columns) }}
{% endmacro %}
