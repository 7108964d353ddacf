{% macro cdc_nested_steps(steps) %}
    {#-
        One query from a chain of steps, each a select that reads the step before it by name
        (`from <name of the step before>`, exactly once): the first step as it is, every later
        one with that `from` replaced by the step before as a subquery of that name. The same
        query as `with <step> as (...), ... select * from <last step>`, which the steps read
        like, but Spark plans a long chain of CTEs in time that grows faster than the chain:
        the optimizer's InlineCTE rule renames the attributes of every step it inlines, over
        the whole plan below it. Measured on the sample's log of checked changes (eleven
        typings of twelve steps each, warm, in one JVM): 8.4-9.7 s to plan as CTEs, InlineCTE
        3.5-3.8 s of it; 3.2-5.3 s as subqueries, InlineCTE 0.15-0.23 s; the same rows.
    -#}
    {%- if steps is string or steps is mapping or steps is not iterable or steps | length == 0 -%}
        {{ exceptions.raise_compiler_error(
            "cdc_nested_steps: steps must be a non-empty list of (name, select) pairs, got " ~ steps
        ) }}
    {%- endif -%}
    {%- set query = namespace(name=none, sql=none) -%}
    {%- for name, sql in steps -%}
        {%- if query.name is none -%}
            {%- set query.sql = sql -%}
        {%- else -%}
            {%- set reads_before = modules.re.compile('\\bfrom ' ~ query.name ~ '\\b') -%}
            {%- set reads = reads_before.findall(sql) | length -%}
            {%- if reads != 1 -%}
                {{ exceptions.raise_compiler_error(
                    "cdc_nested_steps: step '" ~ name ~ "' must read the step before it ('from " ~ query.name
                    ~ "') exactly once, but reads it " ~ reads ~ " times"
                ) }}
            {%- endif -%}
            {%- set found = reads_before.search(sql) -%}
            {%- set query.sql = sql[:found.start()] ~ 'from (' ~ query.sql ~ '\n) as ' ~ query.name ~ sql[found.end():] -%}
        {%- endif -%}
        {%- set query.name = name -%}
    {%- endfor -%}
    {{ return(query.sql) }}
{% endmacro %}
