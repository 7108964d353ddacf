{#-
    Canal JSON: the flat message of open-source Canal and of Alibaba DTS's Canal JSON format.
    One message holds many rows of one table: data[i] is row i, old[i] the values its columns
    had before an update (only the columns that changed; a column present with null changed
    from null). Values are strings or null, typed later by the declared column types, with
    mysqlType as each value's field schema (binary columns arrive as ISO-8859-1 text).

      type INSERT / UPDATE / DELETE / INIT (initial load)  one change per row
      DDL (isDdl true: CREATE, ALTER, ERASE, QUERY, ...)   control record schema_change
      TRUNCATE                                            a truncate of the table

    DTS change tracking instances created before 2022-03-20 send a DELETE with the row in
    `old` and `data` null: the row is read from `old` then.

    Change sequence: DTS's `id` is the operation's serial number and rises in log order, so a
    landing of DTS Canal (meta.landing.canal: dts) orders by [id], then the row index; in
    open-source Canal `id` is a batch id, not a log position, so a landing of it (the default,
    meta.landing.canal: open_source) orders by landing order: no sequence, then the Kafka
    partition and offset (or the file and line), then the row index. `es` is the commit time.
-#}

{% macro canal_json_records(landed_relation, flavour, dts_landings) %}
    {#-
        The staging query of Canal JSON: landed raw records in (landed_relation), canonical
        change records out (cdc_record_columns), one row per row of a message.
        dts_landings: the landing tables (identifiers) that carry DTS Canal, whose `id` orders
        changes (see cdc_canal_dts_landings).
    -#}
    {%- if dts_landings is string or dts_landings is not iterable -%}
        {{ exceptions.raise_compiler_error(
            "canal_json_records: dts_landings is " ~ dts_landings ~ ", expected a list of landing table names"
        ) }}
    {%- endif -%}
    {%- set r = 'row_changes' -%}
    {%- set m = r ~ '.message' -%}
    {%- set dts_order -%}
        {%- if dts_landings | length > 0 -%}
        {{ r }}.landing_table in ({{ cdc_sql_string_list(dts_landings) }})
        {%- else -%}
        false
        {%- endif -%}
    {%- endset -%}
    {%- set fields = {
        'classification': r ~ '.classification',
        'source_database': m ~ '.database',
        'source_schema': 'cast(null as string)',
        'source_table': m ~ '.`table`',
        'operation': r ~ '.operation',
        'key_image': 'cast(null as map<string, variant>)',
        'before_image': "case " ~ r ~ ".operation when 'update' then " ~ r ~ ".row_before_update when 'delete' then " ~ r ~ ".row_image end",
        'after_image': "if(" ~ r ~ ".operation in ('insert', 'snapshot', 'update'), " ~ r ~ ".row_image, null)",
        'field_schemas': _canal_field_schemas(m),
        'change_sequence': 'if(' ~ dts_order ~ ', array(' ~ m ~ '.id), null)',
        'commit_timestamp': cdc_timestamp_from_epoch('nullif(' ~ m ~ '.es, 0)', 'millis'),
        'transaction_id': 'cast(null as string)',
    } -%}
    with

    parsed_records as (
        select
            landed.*,
            {{ cdc_parsed_message('landed', _canal_message_fields()) }} as message
        from {{ landed_relation }} as landed
    ),

    classified_records as (
        select
            parsed_records.*,
            {{ canal_json_classification('parsed_records.message', 'parsed_records.record_value') }} as classification,
            case upper(parsed_records.message.type)
                when 'INSERT' then 'insert'
                when 'UPDATE' then 'update'
                when 'DELETE' then 'delete'
                when 'INIT' then 'snapshot'
                when 'TRUNCATE' then 'truncate'
            end as operation
        from parsed_records
    ),

    {#- One row per row of a change message (DTS's old-style delete: the rows of `old`); one row for any other record. -#}
    message_rows as (
        select
            classified_records.*,
            cast(coalesce(message_row.row_index, 0) as int) as row_index,
            message_row.row_image
        from classified_records
        lateral view outer posexplode(
            if(
                classified_records.classification.outcome = 'change' and classified_records.operation != 'truncate',
                coalesce(classified_records.message.data, classified_records.message.old),
                null
            )
        ) message_row as row_index, row_image
    ),

    {#- An update's row before it: only updates have one (the map lambdas run for them alone). -#}
    row_changes as (
        select
            message_rows.*,
            if(
                message_rows.operation = 'update',
                {{ _canal_row_before_update('message_rows.row_image', 'try_element_at(message_rows.message.old, message_rows.row_index + 1)') | indent(16) }},
                null
            ) as row_before_update
        from message_rows
    )

    {{ cdc_record_columns(fields, flavour, r, row_index=r ~ '.row_index') }}
{% endmacro %}


{% macro canal_json_classification(message, record_value) -%}
    {#-
        What a Canal JSON record is: a change (INSERT, UPDATE, DELETE, INIT; TRUNCATE), a
        control record (a Kafka tombstone, a DDL message), or quarantined with a reason code.
        A message is classified whole, so that its rows share one outcome: a change message
        with no row, or a null row, is missing_row_image; an update whose old holds another
        number of rows than data is mismatched_old_image (which old values belong to which row
        is not knowable); one whose row (or old values) names a column twice is
        duplicate_field_name.
    -#}
    {%- set rows = 'coalesce(' ~ message ~ '.data, ' ~ message ~ '.old)' -%}
    case
        when {{ record_value }} is null or trim({{ record_value }}) = 'null'
            then {{ cdc_classification('control', 'tombstone') }}
        when {{ message }}._corrupt_record is not null
            then {{ cdc_classification('quarantined', 'invalid_json') }}
        when upper({{ message }}.type) in ('INSERT', 'UPDATE', 'DELETE', 'INIT', 'TRUNCATE') and {{ message }}.`table` is null
            then {{ cdc_classification('quarantined', 'missing_source_table') }}
        when upper({{ message }}.type) = 'TRUNCATE'
            then {{ cdc_classification('change', none) }}
        when {{ message }}.isDdl
            then {{ cdc_classification('control', 'schema_change') }}
        when upper({{ message }}.type) in ('INSERT', 'UPDATE', 'DELETE', 'INIT')
            and coalesce(size({{ rows }}) = 0 or exists({{ rows }}, message_row -> message_row is null), true)
            then {{ cdc_classification('quarantined', 'missing_row_image') }}
        when upper({{ message }}.type) = 'UPDATE' and {{ message }}.data is not null and {{ message }}.old is not null
            and size({{ message }}.old) != size({{ message }}.data)
            then {{ cdc_classification('quarantined', 'mismatched_old_image') }}
        when upper({{ message }}.type) in ('INSERT', 'UPDATE', 'DELETE', 'INIT')
            and (
                exists({{ message }}.data, message_row -> {{ cdc_image_repeats_a_name('message_row') }})
                or exists({{ message }}.old, old_values -> {{ cdc_image_repeats_a_name('old_values') }})
            )
            then {{ cdc_classification('quarantined', 'duplicate_field_name') }}
        when upper({{ message }}.type) in ('INSERT', 'UPDATE', 'DELETE', 'INIT')
            then {{ cdc_classification('change', none) }}
        when {{ message }}.type is not null
            then {{ cdc_classification('quarantined', 'unknown_operation') }}
        else {{ cdc_classification('quarantined', 'unrecognized_message') }}
    end
{%- endmacro %}


{% macro cdc_canal_dts_landings(landing_relations) %}
    {#-
        The identifiers of those of landing_relations whose source declares meta.landing.canal
        'dts' (DTS Canal: `id` orders changes); the default, 'open_source', orders by landing
        order. None at parse time and in a unit test (no sources in reach).
    -#}
    {%- set dts_landings = [] -%}
    {%- for landing_relation in landing_relations if execute -%}
        {%- set landing = cdc_landing_settings(landing_relation) -%}
        {%- set canal = landing.get('canal', 'open_source') if landing else 'open_source' -%}
        {%- if canal not in ['open_source', 'dts'] -%}
            {{ exceptions.raise_compiler_error(
                "source " ~ landing_relation.identifier ~ ": meta.landing.canal is '" ~ canal
                ~ "', expected open_source (id is a batch id) or dts (id is the operation serial number)"
            ) }}
        {%- endif -%}
        {%- if canal == 'dts' -%}
            {%- do dts_landings.append(landing_relation.identifier) -%}
        {%- endif -%}
    {%- endfor -%}
    {{ return(dts_landings) }}
{% endmacro %}


{% macro _canal_message_fields() -%}
    data: array<map<string, variant>>, old: array<map<string, variant>>, database: string, `table`: string, type: string, isDdl: boolean, `sql`: string, pkNames: array<string>, mysqlType: map<string, string>, es: bigint, ts: bigint, id: bigint
{%- endmacro %}


{% macro _canal_row_before_update(row_image, old_values) -%}
    {#-
        The row before an update: the row with the columns it had before (old[i]) in place of
        the new ones. A map naming a column twice is passed on as it is, so that the change is
        quarantined (duplicate_field_name) rather than merged (which would fail the query).
    -#}
    case
        when {{ cdc_image_repeats_a_name(old_values) }} then {{ old_values }}
        when {{ cdc_image_repeats_a_name(row_image) }} then {{ row_image }}
        else map_concat(
            map_filter({{ row_image }}, (name, value) -> not coalesce(map_contains_key({{ old_values }}, name), false)),
            coalesce({{ old_values }}, cast(map() as map<string, variant>))
        )
    end
{%- endmacro %}


{% macro _canal_field_schemas(message) -%}
    {#- Each column's MySQL type (mysqlType) as its field schema, named canal.mysqlType for the typing. -#}
    transform_values(
        {{ message }}.mysqlType,
        (name, mysql_type) -> named_struct(
            'field', name,
            'type', mysql_type,
            'name', 'canal.mysqlType',
            'parameters', cast(null as map<string, string>)
        )
    )
{%- endmacro %}
